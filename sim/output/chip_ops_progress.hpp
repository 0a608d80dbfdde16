// The progress line of a detailed run (`scoville run --detailed`: each chip's whole program in
// one SystemC simulation): the ops every chip has finished out of its program's, summed into
// one count with an ETA, and per chip in the label ("h200 1200/3400, jalapeno 900/3400").
// Drawn only on a terminal and without --quiet (sim/output/progress); redrawn at most ten times
// a second, so that counting costs the simulation one clock read per op.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "sim/output/progress.hpp"

namespace scoville::output {

class ChipOpsProgress {
 public:
  // `chips` names the chips in the order the run numbers them.
  ChipOpsProgress(const std::string& what, std::vector<std::string> chips, bool quiet);
  // For tests: draws to `out` when `on`, at every op when `every_op`.
  ChipOpsProgress(const std::string& what, std::vector<std::string> chips, bool on,
                  std::ostream& out, bool every_op);
  ~ChipOpsProgress();
  ChipOpsProgress(const ChipOpsProgress&) = delete;
  ChipOpsProgress& operator=(const ChipOpsProgress&) = delete;

  // False when nothing is drawn (no terminal, --quiet): then the run need not report.
  bool on() const { return on_; }
  // Chip `chip` has done `done` of its `total` ops (engine::DetailedProgress).
  void ops_done(size_t chip, int64_t done, int64_t total);
  // Clears the line before the command prints its results.
  void finish();

 private:
  std::string label() const;

  std::string what_;
  std::vector<std::string> chips_;
  std::vector<int64_t> done_, total_;
  bool on_;
  std::ostream* out_;
  bool every_op_;
  std::unique_ptr<ProgressReporter> reporter_;  // once every chip's total is known
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace scoville::output
