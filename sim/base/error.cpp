#include "sim/base/error.hpp"

#include <utility>

namespace scoville {

std::string SourceLocation::str() const {
  if (line <= 0) return file;
  if (column <= 0) return file + ":" + std::to_string(line);
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string Diagnostic::str() const {
  std::string out = where.str();
  if (!out.empty()) out += ": ";
  if (!key_path.empty()) out += key_path + ": ";
  return out + message;
}

namespace {
std::string join(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const Diagnostic& d : diagnostics) {
    if (!out.empty()) out += "\n";
    out += "error: " + d.str();
  }
  return out;
}
}  // namespace

InputError::InputError(std::vector<Diagnostic> diagnostics)
    : ScovilleError(join(diagnostics)), diagnostics_(std::move(diagnostics)) {}

InputError::InputError(SourceLocation where, std::string key_path, std::string message)
    : InputError(std::vector<Diagnostic>{
          Diagnostic{std::move(where), std::move(key_path), std::move(message)}}) {}

void Diagnostics::error(SourceLocation where, std::string key_path, std::string message) {
  items_.push_back(Diagnostic{std::move(where), std::move(key_path), std::move(message)});
}

void Diagnostics::throw_if_any() const {
  if (!items_.empty()) throw InputError(items_);
}

std::string list_of_choices(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  return out;
}

}  // namespace scoville
