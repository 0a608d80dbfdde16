// The usage text of a command, generated from its OptionSet: its synopsis lines, then one entry
// per positional argument and option (names and value name, the help wrapped into an aligned
// column), then its notes.
#pragma once

#include <string>

#include "sim/cli/option_set.hpp"

namespace scoville::cli {

// Where help text starts and where lines wrap.
constexpr size_t kUsageHelpColumn = 36;
constexpr size_t kUsageWidth = 100;

// "  scoville CMD ARGS    summary" for each synopsis line of `options`.
std::string synopsis_text(const OptionSet& options);
// The synopsis lines, the arguments and options, and the notes.
std::string usage_text(const OptionSet& options);

// `label` at `indent`, then `text` from kUsageHelpColumn, wrapped at kUsageWidth (on the next
// line when the label reaches the column). Exposed for the overall help's closing lines.
std::string aligned_entry(size_t indent, const std::string& label, const std::string& text);

}  // namespace scoville::cli
