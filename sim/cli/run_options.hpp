// The options of `scoville run` and their parsing (the command is sim/cli/run_command.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/cli/system_run.hpp"

namespace scoville::cli {

struct RunOptions {
  std::optional<std::string> study_file;
  std::vector<std::string> chips;
  std::optional<std::string> model;
  std::optional<long long> batch;
  std::optional<long long> isl;
  std::optional<long long> osl;
  std::optional<long long> seed;
  std::optional<std::string> precision;
  std::optional<std::string> power_cap;
  bool json = false;
  bool quiet = false;  // no progress line
  bool detailed = false;
  bool op_cache = true;
  std::optional<std::string> h5_output;
  std::optional<std::string> trace_output;
  std::optional<std::string> trace_window;
  std::vector<std::string> trace_chips;
  std::optional<std::string> trace_file;
  bool study_flags = false;  // any flag that describes a study (excluded by --trace-file)
  std::optional<long long> trace_max_events;
  std::optional<std::string> system;
  SystemRunArgs system_args;
  std::optional<std::string> comm_groups;  // multi-rank trace runs only
  std::optional<std::string> compute;
};

// The options from the command's arguments; UsageError for a flag or combination it refuses.
RunOptions parse_run(const std::vector<std::string>& args);

}  // namespace scoville::cli
