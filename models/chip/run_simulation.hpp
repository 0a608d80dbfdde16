// sc_start() for every simulation of a process, with one correction under AddressSanitizer.
//
// Debian's SystemC 2.3.4 announces its coroutine switches to ASan, but when it switches back to
// the main thread it passes no stack (bottom 0, size 0), so ASan records the main thread's stack
// as empty. Every C++ exception thrown after the simulation (an output error, an input error
// found late) then makes ASan skip its stack clean-up ("ASan is ignoring requested
// __asan_handle_no_return: ... top: 0x0"), and the stale poison of the unwound frames is
// reported as a stack-use-after-scope at the next throw: a false positive. run_simulation() gives
// ASan the main thread's real stack back once sc_start() returns. Without ASan it is sc_start().
#pragma once

namespace scoville::models {

// Runs the SystemC simulation until no events are left (sc_core::sc_start()).
void run_simulation();

}  // namespace scoville::models
