// libsystemc.so references sc_main() from its own main(), which Scoville does not use (it has
// its own main and calls sc_start() directly). This definition only satisfies the linker.
#include <stdexcept>

extern "C" int sc_main(int /*argc*/, char* /*argv*/[]) {
  throw std::logic_error("sc_main is not an entry point of Scoville");
}
