#include "sim/cli/cli_options.hpp"

#include <charconv>

namespace scoville::cli {

std::string usage() {
  return R"(usage:
  scoville run [options]            simulate a study and print per-chip, per-phase results
      --study FILE                  study YAML (default: the embedded default study)
      --chip NAME|FILE              chip(s) to simulate, repeatable or comma-separated
                                    (names resolve to arch/chips/NAME.yaml)
      --system NAME|FILE            same as --chip until multi-chip systems exist
      --model NAME|FILE             model (names resolve to workloads/models/NAME.yaml)
      --batch N                     sequences per iteration
      --isl N                       input (prompt) tokens per sequence
      --osl N                       output tokens per sequence
      --seed N                      run seed (recorded in outputs)
      --json                        print the results as JSON instead of a table
      -o, --output FILE.h5          also write results to HDF5 (atomically)
  scoville config check FILE...     validate chip, energy, model or study YAML files
  scoville config dump FILE         print a file's resolved configuration, defaults filled in
  scoville --version | --help

exit codes: 0 success, 1 internal error, 2 invalid input or usage, 3 cannot write output
data: names resolve under $SCOVILLE_DATA_DIR (default: the source tree it was built from)
)";
}

namespace {

long long parse_count(const std::string& flag, const std::string& value) {
  long long out = 0;
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (ec != std::errc() || ptr != value.data() + value.size() || out < 0) {
    throw UsageError{flag + " expects a whole number >= 0, got '" + value + "'"};
  }
  return out;
}

void split_into(const std::string& list, std::vector<std::string>& out) {
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string item =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
}

RunOptions parse_run(const std::vector<std::string>& args, size_t first) {
  RunOptions r;
  for (size_t i = first; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError{a + " needs a value"};
      return args[++i];
    };
    if (a == "--study") {
      r.study_file = value();
    } else if (a == "--chip" || a == "--system") {
      split_into(value(), r.chips);
    } else if (a == "--model") {
      r.model = value();
    } else if (a == "--batch") {
      r.batch = parse_count(a, value());
    } else if (a == "--isl") {
      r.isl = parse_count(a, value());
    } else if (a == "--osl") {
      r.osl = parse_count(a, value());
    } else if (a == "--seed") {
      r.seed = parse_count(a, value());
    } else if (a == "--json") {
      r.json = true;
    } else if (a == "-o" || a == "--output") {
      r.h5_output = value();
    } else {
      throw UsageError{"unknown option '" + a + "' for 'scoville run'"};
    }
  }
  return r;
}

}  // namespace

Options parse_command_line(const std::vector<std::string>& args) {
  Options o;
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    o.command = Command::kHelp;
    return o;
  }
  if (args[0] == "--version") {
    o.command = Command::kVersion;
    return o;
  }
  if (args[0] == "run") {
    o.command = Command::kRun;
    o.run = parse_run(args, 1);
    return o;
  }
  if (args[0] == "config") {
    if (args.size() < 2) throw UsageError{"'scoville config' needs 'check' or 'dump'"};
    o.files.assign(args.begin() + 2, args.end());
    if (args[1] == "check") {
      o.command = Command::kConfigCheck;
      if (o.files.empty()) throw UsageError{"'scoville config check' needs at least one file"};
    } else if (args[1] == "dump") {
      o.command = Command::kConfigDump;
      if (o.files.size() != 1) throw UsageError{"'scoville config dump' takes exactly one file"};
    } else {
      throw UsageError{"unknown config action '" + args[1] + "' (expected check or dump)"};
    }
    return o;
  }
  throw UsageError{"unknown command '" + args[0] + "'"};
}

}  // namespace scoville::cli
