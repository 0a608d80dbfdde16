// The scoville subcommands. Each returns the process exit code; errors are thrown as typed
// exceptions for main() to report.
#pragma once

#include <ostream>

#include "sim/cli/cli_options.hpp"

namespace scoville::cli {

int execute(const Options& options, int argc, const char* const* argv, std::ostream& out);

}  // namespace scoville::cli
