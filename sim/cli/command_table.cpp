#include "sim/cli/command_table.hpp"

#include "sim/cli/suggest.hpp"
#include "sim/cli/usage_text.hpp"
#include "sim/output/provenance.hpp"

namespace scoville::cli {

const std::vector<CommandEntry>& command_table() {
  static const std::vector<CommandEntry> table = {
      {"run", run_options, run_command},
      {"config", config_options, config_command},
      {"sweep", sweep_options, sweep_command},
      {"merge", merge_options, merge_command},
      {"report", report_options, report_command},
      {"trace", trace_options, trace_command},
      {"chip-bench", chip_bench_options, chip_bench_command},
      {"net", net_options, net_command},
      {"ablate", ablate_options, ablate_command},
      {"inferencex", inferencex_options, inferencex_command},
      {"step", step_options, step_command},
      {"serve", serve_options, serve_command},
      {"plan", plan_options, plan_command},
      {"validate", validate_options, validate_command},
      {"calibrate", calibrate_options, calibrate_command},
      {"op-cache", op_cache_options, op_cache_command},
      {"list", list_options, list_command},
      {"area", area_options, area_command},
  };
  return table;
}

std::string usage(const std::string& command) {
  std::string text = "usage:\n";
  for (const CommandEntry& entry : command_table()) {
    if (entry.name == command) return text + usage_text(entry.options());
  }
  for (const CommandEntry& entry : command_table()) text += synopsis_text(entry.options());
  text += aligned_entry(2, "scoville --version | --help", "");
  text += R"(
'scoville COMMAND --help' lists a command's options.
exit codes: 0 success, 1 internal error, 2 invalid input or usage, 3 cannot write output,
            4 a sweep finished with failed points
data: names resolve under $SCOVILLE_DATA_DIR (default: the source tree it was built from)
)";
  return text;
}

int dispatch(const std::vector<std::string>& args, int argc, const char* const* argv,
             std::ostream& out) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    out << usage();
    return 0;
  }
  if (args[0] == "--version") {
    out << "scoville " << output::tool_version() << " (git " << output::git_sha()
        << "), C++17, SystemC 2.3\n";
    return 0;
  }
  for (const CommandEntry& entry : command_table()) {
    if (args[0] == entry.name) {
      // `scoville CMD --help` (or -h) anywhere among the command's arguments: its usage, exit 0.
      for (size_t i = 1; i < args.size(); ++i) {
        if (args[i] == "--help" || args[i] == "-h") {
          out << usage(entry.name);
          return 0;
        }
      }
      const Invocation invocation{std::vector<std::string>(args.begin() + 1, args.end()), argc,
                                  argv};
      try {
        return entry.execute(invocation, out);
      } catch (UsageError& e) {
        if (e.command.empty()) e.command = entry.name;
        throw;
      }
    }
  }
  std::vector<std::string> names;
  for (const CommandEntry& entry : command_table()) names.emplace_back(entry.name);
  std::string message = "unknown command '" + args[0] + "'";
  if (const auto guess = nearest(args[0], names)) message += "; did you mean '" + *guess + "'?";
  throw UsageError{message};
}

}  // namespace scoville::cli
