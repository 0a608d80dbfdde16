#include "sim/cli/command_table.hpp"

#include "sim/cli/arg_reader.hpp"
#include "sim/cli/suggest.hpp"
#include "sim/output/provenance.hpp"

namespace scoville::cli {

extern const char kRunUsage[];
extern const char kConfigUsage[];
extern const char kReportUsage[];
extern const char kSweepUsage[];
extern const char kTraceUsage[];
extern const char kChipBenchUsage[];
extern const char kNetUsage[];
extern const char kAblateUsage[];
extern const char kInferencexUsage[];
extern const char kServeUsage[];
extern const char kValidateUsage[];
extern const char kCalibrateUsage[];
extern const char kOpCacheUsage[];
extern const char kListUsage[];
extern const char kAreaUsage[];
extern const char kPlanUsage[];

const std::vector<CommandEntry>& command_table() {
  static const std::vector<CommandEntry> table = {
      {"run", kRunUsage, run_command},
      {"config", kConfigUsage, config_command},
      {"sweep", kSweepUsage, sweep_command},
      {"merge", kSweepUsage, merge_command},  // documented with sweep
      {"report", kReportUsage, report_command},
      {"trace", kTraceUsage, trace_command},
      {"chip-bench", kChipBenchUsage, chip_bench_command},
      {"net", kNetUsage, net_command},
      {"ablate", kAblateUsage, ablate_command},
      {"inferencex", kInferencexUsage, inferencex_command},
      {"serve", kServeUsage, serve_command},
      {"plan", kPlanUsage, plan_command},
      {"validate", kValidateUsage, validate_command},
      {"calibrate", kCalibrateUsage, calibrate_command},
      {"op-cache", kOpCacheUsage, op_cache_command},
      {"list", kListUsage, list_command},
      {"area", kAreaUsage, area_command},
  };
  return table;
}

std::string usage(const std::string& command) {
  std::string text = "usage:\n";
  for (const CommandEntry& entry : command_table()) {
    if (entry.name == command) return text + entry.usage;
  }
  const char* previous = nullptr;
  for (const CommandEntry& entry : command_table()) {
    if (entry.usage != previous) text += entry.usage;  // commands sharing a text show it once
    previous = entry.usage;
  }
  text += R"(  scoville --version | --help

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
