// Runs sweep points, each in its own process (a SystemC design is elaborated once per process):
// `scoville run --study points/<id>.yaml -o points/<id>.h5` (a study point) or `scoville serve
// --scenario points/<id>.yaml -o points/<id>.h5` (a scenario point). A point is done when its .h5
// exists (written atomically, so a killed run leaves none); a failed point leaves <id>.err with its
// exit status and error output, and never stops the others.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/sweep/sweep_config.hpp"

namespace scoville::sweep {

enum class PointStatus { kDone, kFailed, kPending };
std::string to_string(PointStatus status);

// Files of one point under the sweep's output directory.
struct PointFiles {
  std::string study;   // points/<id>.yaml (the point's study or scenario)
  std::string result;  // points/<id>.h5
  std::string log;     // points/<id>.log (the run's stdout and stderr)
  std::string error;   // points/<id>.err (present only after a failure)
};
PointFiles point_files(const std::string& dir, const SweepPoint& point);
PointStatus point_status(const std::string& dir, const SweepPoint& point);

// Creates dir/points, writes the sweep file copy and each point's study file, and removes
// temporaries left by killed runs. Idempotent.
void prepare_directory(const std::string& dir, const SweepConfig& sweep,
                       const std::vector<SweepPoint>& points);

// Which points this process runs: every point of shard `shard` of `shards` (index % shards).
std::vector<SweepPoint> shard_points(const std::vector<SweepPoint>& points, int64_t shard,
                                     int64_t shards);

// The executable to spawn for points (this one, from /proc/self/exe).
std::string own_executable();

// Runs one point and waits for it; returns its status (done or failed).
PointStatus run_point(const std::string& executable, const std::string& dir,
                      const SweepPoint& point);

struct RunSummary {
  int64_t skipped = 0;  // already done before this run
  int64_t done = 0;
  int64_t failed = 0;
};

// Runs the points that are not done yet, up to `jobs` at a time. `progress` (may be null) gets a
// line per finished point.
RunSummary run_points(const std::string& executable, const std::string& dir,
                      const std::vector<SweepPoint>& points, int64_t jobs, std::ostream* progress);

}  // namespace scoville::sweep
