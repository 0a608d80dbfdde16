// `scoville config check|dump`: validate configuration files, or print one fully resolved.
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/config/config_files.hpp"

namespace scoville::cli {

OptionSet config_options() {
  OptionSet s("config");
  s.synopsis("check FILE...", "validate chip, energy, model, study or system YAML files")
      .synopsis("dump FILE", "print a file's resolved configuration, defaults filled in")
      .positional("check|dump", "validate the files, or print one resolved")
      .positional("FILE", "a configuration file (its kind is detected)");
  return s;
}

namespace {

int config_check(const std::vector<std::string>& files, std::ostream& out) {
  std::vector<Diagnostic> problems;
  for (const std::string& file : files) {
    try {
      const config::FileKind kind = config::check_file(file);
      out << file << ": ok (" << config::to_string(kind) << ")\n";
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!problems.empty()) throw InputError(problems);
  return 0;
}

}  // namespace

int config_command(const Invocation& invocation, std::ostream& out) {
  const std::vector<std::string> args = config_options().parse(invocation.args).positionals();
  if (args.empty()) throw UsageError{"'scoville config' needs 'check' or 'dump'"};
  const std::vector<std::string> files(args.begin() + 1, args.end());
  if (args[0] == "check") {
    if (files.empty()) throw UsageError{"'scoville config check' needs at least one file"};
    return config_check(files, out);
  }
  if (args[0] == "dump") {
    if (files.size() != 1) throw UsageError{"'scoville config dump' takes exactly one file"};
    out << config::dump_file(files.front());
    return 0;
  }
  throw UsageError{"unknown config action '" + args[0] + "' (expected check or dump)"};
}

}  // namespace scoville::cli
