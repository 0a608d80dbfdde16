#include "models/chip/run_simulation.hpp"

#include <systemc>

#if defined(__SANITIZE_ADDRESS__)
#include <pthread.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace scoville::models {

namespace {

#if defined(__SANITIZE_ADDRESS__)
// A fiber "switch" from the main thread to itself, announced with the thread's real stack: ASan
// takes the announced bounds as the current stack when the switch finishes.
void restore_main_stack_bounds() {
  pthread_attr_t attributes;
  if (pthread_getattr_np(pthread_self(), &attributes) != 0) return;
  void* bottom = nullptr;
  size_t size = 0;
  const bool known = pthread_attr_getstack(&attributes, &bottom, &size) == 0;
  pthread_attr_destroy(&attributes);
  if (!known || bottom == nullptr || size == 0) return;
  void* fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&fake_stack, bottom, size);
  __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
}
#endif

}  // namespace

void run_simulation() {
  sc_core::sc_start();
#if defined(__SANITIZE_ADDRESS__)
  restore_main_stack_bounds();
#endif
}

}  // namespace scoville::models
