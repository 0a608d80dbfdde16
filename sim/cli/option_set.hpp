// A command's options, declared once. The parser (Boost.Program_options underneath) and the usage
// text (sim/cli/usage_text.hpp) are both made from the declarations, so `scoville CMD --help`
// cannot drift from what the command accepts.
//
//   OptionSet s("run");
//   s.synopsis("[options]", "simulate a study and print per-chip, per-phase results");
//   s.count("--batch", "N", "sequences per iteration");
//   s.text("-o,--output", "FILE.h5", "also write results to HDF5 (atomically)");
//   const ParsedOptions p = s.parse(args);
//   std::optional<long long> batch = p.count("--batch");
#pragma once

#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/cli/parsed_options.hpp"

namespace scoville::cli {

using scoville::UsageError;

// One declared option. `long_name` keeps its dashes ("--output"); `short_name` is the letter of
// a one-dash alias ('o' for -o), or 0.
struct OptionSpec {
  std::string long_name;
  char short_name = 0;
  ValueKind kind = ValueKind::kFlag;
  std::string value_name;  // shown after the flag in the usage: N, FILE, NAME|FILE
  std::string help;
  bool repeatable = false;  // each use adds its values; otherwise a second use is an error
};

// A positional argument as the usage shows it (FILE.h5..., info|prune|clear). The parser hands
// every positional word to the command in order; the command checks how many it takes.
struct PositionalSpec {
  std::string name;
  std::string help;
};

// One line of the command's summary: "scoville <command> <arguments>" and what it does.
struct Synopsis {
  std::string arguments;
  std::string summary;
};

class OptionSet {
 public:
  // `command` as typed after "scoville" ("run", "op-cache"). Every set knows -h, --help (the
  // dispatcher answers it before any command parses).
  explicit OptionSet(std::string command);

  // A usage line of the command: its arguments ("[options]", "FILE.yaml [options]") and summary.
  OptionSet& synopsis(std::string arguments, std::string summary);

  // `names`: "--name" or "-x,--name". A flag takes no value.
  OptionSet& flag(const std::string& names, std::string help);
  // One string value; a second use is an error.
  OptionSet& text(const std::string& names, std::string value_name, std::string help);
  // One string value per use, every use kept in order (e.g. --set KEY=VALUE, repeatable).
  OptionSet& texts(const std::string& names, std::string value_name, std::string help);
  // A whole number >= 0 (scoville::parse_count wording for anything else).
  OptionSet& count(const std::string& names, std::string value_name, std::string help);
  // Comma-separated non-empty items; `repeatable`: each use adds its items.
  OptionSet& list(const std::string& names, std::string value_name, std::string help,
                  bool repeatable = false);
  // Comma-separated whole numbers >= 0; `repeatable`: each use adds its numbers.
  OptionSet& count_list(const std::string& names, std::string value_name, std::string help,
                        bool repeatable = false);
  // Positional arguments the command takes (without one, any positional word is refused).
  OptionSet& positional(std::string name, std::string help);
  // A paragraph the usage shows after the options (how flags combine, what the exit code means).
  OptionSet& note(std::string text);

  // Reads `args` (the words after the command name). UsageError for an unknown option (with the
  // nearest declared one suggested), a missing or malformed value, a single-valued option given
  // twice, or a positional word the command does not take.
  ParsedOptions parse(const std::vector<std::string>& args) const;

  const std::string& command() const { return command_; }
  const std::vector<Synopsis>& synopses() const { return synopses_; }
  const std::vector<OptionSpec>& options() const { return options_; }
  const std::vector<PositionalSpec>& positionals() const { return positionals_; }
  const std::vector<std::string>& notes() const { return notes_; }
  // Every long name declared ("--batch", ...), in declaration order, --help included.
  std::vector<std::string> long_names() const;

 private:
  OptionSet& declare(const std::string& names, ValueKind kind, std::string value_name,
                     std::string help, bool repeatable);

  std::string command_;
  std::vector<Synopsis> synopses_;
  std::vector<OptionSpec> options_;
  std::vector<PositionalSpec> positionals_;
  std::vector<std::string> notes_;
};

// -h, --help: every command has it (the dispatcher answers it before any command parses).
const OptionSpec& help_option();

// The non-empty items of a comma-separated list ("a,,b" -> a, b): how list options split their
// values, and how commands split values such as --vary KEY=V1,V2.
std::vector<std::string> split_list(const std::string& list);

}  // namespace scoville::cli
