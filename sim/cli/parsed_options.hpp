// What OptionSet::parse found on a command line, read by long name. Reading a name the set did
// not declare, or as another kind than declared, is a programming error (std::logic_error), so a
// command cannot silently read a flag its usage does not list.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace scoville::cli {

enum class ValueKind {
  kFlag,       // no value
  kText,       // a string
  kCount,      // a whole number >= 0
  kList,       // comma-separated non-empty strings
  kCountList,  // comma-separated whole numbers >= 0
};

class ParsedOptions {
 public:
  // Whether the option was given at all (any kind).
  bool given(const std::string& name) const;
  // A flag: given or not.
  bool flag(const std::string& name) const;
  // A single-valued text option's value, if given.
  std::optional<std::string> text(const std::string& name) const;
  // A text option's value, or `fallback` when not given.
  std::string text_or(const std::string& name, const std::string& fallback) const;
  // Every value of a repeatable text option, in command-line order.
  std::vector<std::string> texts(const std::string& name) const;
  std::optional<long long> count(const std::string& name) const;
  // The items of a list option (of every use when repeatable); empty when not given.
  std::vector<std::string> list(const std::string& name) const;
  std::vector<long long> count_list(const std::string& name) const;
  // The positional words, in command-line order.
  const std::vector<std::string>& positionals() const { return positionals_; }

 private:
  friend class OptionSet;
  struct Values {
    ValueKind kind = ValueKind::kFlag;
    int uses = 0;
    std::vector<std::string> texts;  // text and list items
    std::vector<long long> counts;   // count and count-list items
  };
  const Values& values(const std::string& name, ValueKind kind) const;

  std::map<std::string, Values> values_;  // every declared long name, given or not
  std::vector<std::string> positionals_;
};

}  // namespace scoville::cli
