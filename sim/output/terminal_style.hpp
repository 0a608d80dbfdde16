// Colour for terminal output, only where a person is looking: stdout is a terminal, NO_COLOR
// (no-color.org) is unset and TERM is not "dumb". Pipes, files and CI logs get plain text.
#pragma once

#include <string>

namespace scoville::output {

bool stdout_wants_colour();

enum class Style { kBold, kCompute, kHbm, kOther };

// `text` wrapped in the ANSI SGR codes for `style` when `on`, unchanged otherwise.
std::string paint(const std::string& text, Style style, bool on);

}  // namespace scoville::output
