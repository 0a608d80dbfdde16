// The scoville executable: maps typed errors to messages and exit codes (no library exits).
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/sweep/child_signals.hpp"

namespace {
constexpr int kExitOk = 0;
constexpr int kExitInternal = 1;
constexpr int kExitInput = 2;
constexpr int kExitOutput = 3;
}  // namespace

int main(int argc, char** argv) {
  // A sweep's point dies with its sweep, even one killed with SIGKILL
  // (sim/sweep/child_signals.hpp).
  scoville::sweep::die_with_sweep_parent();
  // SystemC prints a banner on first use unless told not to.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return scoville::cli::dispatch(args, argc, argv, std::cout);
  } catch (const scoville::cli::UsageError& e) {
    std::cerr << "scoville: " << e.message << "\n\n" << scoville::cli::usage(e.command);
    return kExitInput;
  } catch (const scoville::InputError& e) {
    std::cerr << e.what() << "\n";
    return kExitInput;
  } catch (const scoville::Interrupted& e) {
    std::cerr << "scoville: " << e.what() << "\n";
    return 128 + e.signal();
  } catch (const scoville::OutputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitOutput;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return kExitInternal;
  }
  return kExitOk;
}
