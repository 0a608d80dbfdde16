// Reads one subcommand's flags. Every command parses its own options with this, so that flag
// syntax, number parsing and error wording are the same across `scoville` commands.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/unit_parser.hpp"

namespace scoville::cli {

// Thrown for a command line that cannot be understood; main prints it with the usage (exit 2).
using scoville::UsageError;

class ArgReader {
 public:
  // `command` names the subcommand in messages (e.g. "scoville run").
  ArgReader(std::string command, std::vector<std::string> args);

  // Advances to the next argument; false at the end.
  bool next();
  // The current argument (a flag such as "--batch", or a positional argument).
  const std::string& current() const { return args_[index_]; }
  bool is(const char* flag) const { return current() == flag; }
  bool is_flag() const { return current().size() > 1 && current()[0] == '-'; }

  // The value after the current flag (consumed).
  const std::string& value();
  // The value as a whole number >= 0.
  long long count();
  // The value as a comma-separated list of non-empty items.
  std::vector<std::string> list();
  // The value as a comma-separated list of whole numbers >= 0.
  std::vector<long long> count_list();

  [[noreturn]] void unknown() const;
  const std::string& command() const { return command_; }

 private:
  std::string command_;
  std::vector<std::string> args_;
  size_t index_ = 0;
  bool started_ = false;
};

using scoville::parse_count;  // sim/base/unit_parser.hpp
std::vector<std::string> split_list(const std::string& list);

}  // namespace scoville::cli
