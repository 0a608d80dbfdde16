// Typed errors. No library calls exit(); main() maps these to messages and exit codes:
//   InputError (bad YAML, units, infeasible mapping, corrupt trace) -> exit 2
//   OutputError (cannot write results)                              -> exit 3
//   Interrupted (SIGINT/SIGTERM, children stopped)                  -> exit 128 + signal
//   anything else                                                   -> exit 1 (internal error)
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace scoville {

// 1-based position in an input file; line 0 means "the whole file".
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;

  std::string str() const;  // "file:line:col", "file:line" or "file"
};

// One problem with an input: where, which key (dotted path, e.g. "chip.hbm.stacks"), what.
struct Diagnostic {
  SourceLocation where;
  std::string key_path;
  std::string message;

  std::string str() const;  // "file:line:col: key.path: message"
};

class ScovilleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad input: carries every problem found, so that the user can fix them all in one pass.
class InputError : public ScovilleError {
 public:
  explicit InputError(std::vector<Diagnostic> diagnostics);
  InputError(SourceLocation where, std::string key_path, std::string message);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

// Results could not be written (disk full, permission, ...).
class OutputError : public ScovilleError {
 public:
  using ScovilleError::ScovilleError;
};

// A run stopped by SIGINT or SIGTERM once it had stopped and waited for its child processes;
// main exits with 128 + the signal, as a shell reports a process killed by it.
class Interrupted : public ScovilleError {
 public:
  Interrupted(int signal, const std::string& what) : ScovilleError(what), signal_(signal) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

// Collects diagnostics while a file is read; throws them all at once.
class Diagnostics {
 public:
  void error(SourceLocation where, std::string key_path, std::string message);
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  const std::vector<Diagnostic>& items() const { return items_; }
  // Throws InputError with everything collected, if anything was.
  void throw_if_any() const;

 private:
  std::vector<Diagnostic> items_;
};

// "a, b or c": the choices an error message offers.
std::string list_of_choices(const std::vector<std::string>& names);

// A command line that cannot be understood (an unknown flag, a value of the wrong form): front ends
// print it with the command's usage (exit 2). Library code that parses a command-line word (a
// fidelity, a policy name) throws it too, so every front end reports it the same way.
struct UsageError {
  explicit UsageError(std::string what) : message(std::move(what)) {}
  std::string message;
  std::string command;  // the subcommand it concerns (help shows its usage); empty: all
};

}  // namespace scoville
