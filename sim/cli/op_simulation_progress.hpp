// A progress line for commands whose time goes into the simulated op table: each op run on a
// chip model (an op-cache miss) is counted as it finishes, so a run on a cold op cache, which
// takes minutes, shows what it is doing. Drawn only on a terminal (sim/output/progress).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "sim/output/progress.hpp"

namespace scoville::cli {

class OpSimulationProgress {
 public:
  // `what` names the command ("run").
  OpSimulationProgress(const std::string& what, bool quiet);
  ~OpSimulationProgress();
  OpSimulationProgress(const OpSimulationProgress&) = delete;
  OpSimulationProgress& operator=(const OpSimulationProgress&) = delete;

  // Clears the line before the command prints its results.
  void finish();

 private:
  std::unique_ptr<output::ProgressReporter> reporter_;
};

// For commands whose line counts points (inferencex, plan, ablate, validate, calibrate): while
// alive, the ops simulated on the chip model are shown on `line`'s label between its steps
// ("412 ops simulated"), so that one point on a cold op cache, which can take a minute, does not
// leave the line still. Redrawn at most five times a second; nothing when the line is off.
class OpCountOnLine {
 public:
  explicit OpCountOnLine(output::ProgressReporter& line);
  ~OpCountOnLine();
  OpCountOnLine(const OpCountOnLine&) = delete;
  OpCountOnLine& operator=(const OpCountOnLine&) = delete;

 private:
  bool listening_ = false;
  int64_t simulated_ = 0;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace scoville::cli
