// Colour only when asked: plain text is untouched, painted text is wrapped in one SGR pair, and
// stdout that is not a terminal (as under ctest) never wants colour.
#include <catch2/catch.hpp>

#include "sim/output/terminal_style.hpp"

namespace scoville::output {

TEST_CASE("paint leaves text alone when colour is off", "[terminal]") {
  CHECK(paint("hbm", Style::kHbm, false) == "hbm");
}

TEST_CASE("paint wraps text in one SGR code and a reset", "[terminal]") {
  const std::string painted = paint("hbm", Style::kHbm, true);
  CHECK(painted.rfind("\033[", 0) == 0);
  CHECK(painted.find("hbm") != std::string::npos);
  CHECK(painted.size() > 3);
  CHECK(painted.substr(painted.size() - 4) == "\033[0m");
}

TEST_CASE("NO_COLOR turns colour off", "[terminal]") {
  setenv("NO_COLOR", "1", 1);
  CHECK_FALSE(stdout_wants_colour());
  unsetenv("NO_COLOR");
}

}  // namespace scoville::output
