#include "sim/output/terminal_style.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace scoville::output {

bool stdout_wants_colour() {
  if (std::getenv("NO_COLOR") != nullptr) return false;
  const char* term = std::getenv("TERM");
  if (term == nullptr || std::strcmp(term, "dumb") == 0) return false;
  return isatty(STDOUT_FILENO) == 1;
}

std::string paint(const std::string& text, Style style, bool on) {
  if (!on) return text;
  const char* code = "";
  switch (style) {
    case Style::kBold:
      code = "1";
      break;
    case Style::kCompute:
      code = "34";
      break;  // blue
    case Style::kHbm:
      code = "33";
      break;  // yellow
    case Style::kOther:
      code = "35";
      break;  // magenta
  }
  return std::string("\033[") + code + "m" + text + "\033[0m";
}

}  // namespace scoville::output
