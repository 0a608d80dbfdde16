#include "sim/output/provenance.hpp"

#include <cstdlib>
#include <ctime>

#include "scoville_git_revision.hpp"  // SCOVILLE_GIT_SHA, generated at build time

namespace scoville::output {

std::string tool_version() { return SCOVILLE_VERSION; }
std::string git_sha() { return SCOVILLE_GIT_SHA; }

Provenance Provenance::current(int argc, const char* const* argv, uint64_t seed) {
  Provenance p;
  p.tool_version = output::tool_version();
  p.git_sha = output::git_sha();
  p.seed = seed;
  for (int i = 0; i < argc; ++i) p.command_line += (i ? " " : "") + std::string(argv[i]);
  std::time_t now = std::time(nullptr);
  if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH")) {
    now = static_cast<std::time_t>(std::strtoll(epoch, nullptr, 10));
  }
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ", &utc);
  p.created_utc = buffer;
  return p;
}

}  // namespace scoville::output
