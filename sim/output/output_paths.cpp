#include "sim/output/output_paths.hpp"

#include <filesystem>

#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"

namespace scoville::output {

namespace fs = std::filesystem;

namespace {

// The absolute, normalised path with every existing part's links resolved; the text itself when
// the file system cannot say (the comparison then falls back to the text).
fs::path resolved(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) return fs::path(path).lexically_normal();
  return p;
}

[[noreturn]] void refuse(const std::string& flag, const std::string& path, const std::string& why) {
  throw InputError(SourceLocation{"<command line>", 0, 0}, flag, "'" + path + "' " + why);
}

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ea, eb;
  if (fs::exists(a, ea) && fs::exists(b, eb)) {
    std::error_code ec;
    if (fs::equivalent(a, b, ec)) return true;  // same device and inode
  }
  return resolved(a) == resolved(b);
}

void RunFiles::input(const std::string& flag, const std::string& path) {
  if (!path.empty()) inputs_.push_back({flag, path});
}

void RunFiles::named_input(const std::string& flag, const std::string& name_or_path,
                           const std::string& folder) {
  if (name_or_path.empty()) return;
  input(flag, config::DataPaths::from_environment().resolve(name_or_path, folder));
}

void RunFiles::output(const std::string& flag, const std::string& path) {
  if (!path.empty()) outputs_.push_back({flag, path});
}

void RunFiles::check() const {
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const Use& out = outputs_[i];
    for (const Use& in : inputs_) {
      if (same_file(out.path, in.path)) {
        refuse(out.flag, out.path,
               "is also the " + in.flag + " input: writing it would destroy the input; " +
                   "choose another output path");
      }
    }
    for (size_t j = 0; j < i; ++j) {
      if (same_file(out.path, outputs_[j].path)) {
        refuse(out.flag, out.path,
               "is also the " + outputs_[j].flag + " output: two results of one run cannot " +
                   "share a path (the second would replace the first); give each its own");
      }
    }
  }
}

}  // namespace scoville::output
