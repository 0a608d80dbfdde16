// The scoville subcommands. Each lives in its own file (sim/cli/*_command.cpp), declares its
// options once (an OptionSet: its parser and its usage text), returns the process exit code, and
// throws typed errors for main().
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sim/cli/option_set.hpp"

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
  OptionSet (*options)();  // its declarations: what it parses, and its usage text
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
int step_command(const Invocation& invocation, std::ostream& out);

// Each command's options, declared beside the command.
OptionSet run_options();
OptionSet config_options();
OptionSet report_options();
OptionSet sweep_options();
OptionSet merge_options();
OptionSet trace_options();
OptionSet chip_bench_options();
OptionSet net_options();
OptionSet ablate_options();
OptionSet inferencex_options();
OptionSet step_options();
OptionSet serve_options();
OptionSet validate_options();
OptionSet calibrate_options();
OptionSet op_cache_options();
OptionSet list_options();
OptionSet area_options();
OptionSet plan_options();

const std::vector<CommandEntry>& command_table();
// Every command's synopsis (`scoville --help`), or `command`'s full usage when it names one.
std::string usage(const std::string& command = {});

// Dispatches args[0] to its command (or prints help / version).
int dispatch(const std::vector<std::string>& args, int argc, const char* const* argv,
             std::ostream& out);

}  // namespace scoville::cli
