// The scoville subcommands. Each lives in its own file (sim/cli/*_command.cpp), parses its own
// arguments with ArgReader, returns the process exit code, and throws typed errors for main().
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace scoville::cli {

// What a command is given: its arguments (after the command name) and the full command line
// (recorded as provenance in outputs).
struct Invocation {
  std::vector<std::string> args;
  int argc = 0;
  const char* const* argv = nullptr;
};

struct CommandEntry {
  const char* name;
  const char* usage;  // indented help lines, shown in `scoville --help`
  int (*execute)(const Invocation& invocation, std::ostream& out);
};

// One declaration per command; the table in command_table.cpp lists them in help order.
int run_command(const Invocation& invocation, std::ostream& out);
int config_command(const Invocation& invocation, std::ostream& out);
int report_command(const Invocation& invocation, std::ostream& out);
int sweep_command(const Invocation& invocation, std::ostream& out);
int merge_command(const Invocation& invocation, std::ostream& out);
int trace_command(const Invocation& invocation, std::ostream& out);
int chip_bench_command(const Invocation& invocation, std::ostream& out);
int net_command(const Invocation& invocation, std::ostream& out);
int ablate_command(const Invocation& invocation, std::ostream& out);
int inferencex_command(const Invocation& invocation, std::ostream& out);
int serve_command(const Invocation& invocation, std::ostream& out);
int validate_command(const Invocation& invocation, std::ostream& out);
int calibrate_command(const Invocation& invocation, std::ostream& out);
int op_cache_command(const Invocation& invocation, std::ostream& out);
int list_command(const Invocation& invocation, std::ostream& out);
int area_command(const Invocation& invocation, std::ostream& out);
int plan_command(const Invocation& invocation, std::ostream& out);

const std::vector<CommandEntry>& command_table();
// All commands' usage, or only `command`'s when it names one.
std::string usage(const std::string& command = {});

// Dispatches args[0] to its command (or prints help / version).
int dispatch(const std::vector<std::string>& args, int argc, const char* const* argv,
             std::ostream& out);

}  // namespace scoville::cli
