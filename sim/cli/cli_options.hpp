// Command-line parsing for `scoville`. Pure (no SystemC), so it is unit-tested directly.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace scoville::cli {

enum class Command { kHelp, kVersion, kRun, kConfigCheck, kConfigDump };

struct RunOptions {
  std::optional<std::string> study_file;
  std::vector<std::string> chips;  // --chip / --system, repeatable, or comma-separated
  std::optional<std::string> model;
  std::optional<long long> batch;
  std::optional<long long> isl;
  std::optional<long long> osl;
  std::optional<long long> seed;
  bool json = false;
  std::optional<std::string> h5_output;
};

struct Options {
  Command command = Command::kHelp;
  RunOptions run;
  std::vector<std::string> files;  // config check / dump
};

// Thrown for a command line that cannot be understood; main prints it with the usage (exit 2).
struct UsageError {
  std::string message;
};

Options parse_command_line(const std::vector<std::string>& args);
std::string usage();

}  // namespace scoville::cli
