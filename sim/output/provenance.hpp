// Who made a result file, from what, and how to make it again.
#pragma once

#include <cstdint>
#include <string>

namespace scoville::output {

struct Provenance {
  std::string tool_version;
  std::string git_sha;
  std::string command_line;
  std::string created_utc;  // ISO 8601; from $SOURCE_DATE_EPOCH when set (reproducible files)
  uint64_t seed = 0;

  static Provenance current(int argc, const char* const* argv, uint64_t seed);
};

std::string tool_version();
std::string git_sha();

}  // namespace scoville::output
