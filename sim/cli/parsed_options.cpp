#include "sim/cli/parsed_options.hpp"

#include <stdexcept>

namespace scoville::cli {

const ParsedOptions::Values& ParsedOptions::values(const std::string& name, ValueKind kind) const {
  const auto found = values_.find(name);
  if (found == values_.end()) {
    throw std::logic_error("option " + name + " is read but was not declared");
  }
  if (found->second.kind != kind) {
    throw std::logic_error("option " + name + " is read as another kind than it was declared");
  }
  return found->second;
}

bool ParsedOptions::given(const std::string& name) const {
  const auto found = values_.find(name);
  if (found == values_.end()) {
    throw std::logic_error("option " + name + " is read but was not declared");
  }
  return found->second.uses > 0;
}

bool ParsedOptions::flag(const std::string& name) const {
  return values(name, ValueKind::kFlag).uses > 0;
}

std::optional<std::string> ParsedOptions::text(const std::string& name) const {
  const Values& v = values(name, ValueKind::kText);
  if (v.texts.empty()) return std::nullopt;
  return v.texts.back();
}

std::string ParsedOptions::text_or(const std::string& name, const std::string& fallback) const {
  return text(name).value_or(fallback);
}

std::vector<std::string> ParsedOptions::texts(const std::string& name) const {
  return values(name, ValueKind::kText).texts;
}

std::optional<long long> ParsedOptions::count(const std::string& name) const {
  const Values& v = values(name, ValueKind::kCount);
  if (v.counts.empty()) return std::nullopt;
  return v.counts.back();
}

std::vector<std::string> ParsedOptions::list(const std::string& name) const {
  return values(name, ValueKind::kList).texts;
}

std::vector<long long> ParsedOptions::count_list(const std::string& name) const {
  return values(name, ValueKind::kCountList).counts;
}

}  // namespace scoville::cli
