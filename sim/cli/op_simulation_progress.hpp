// A progress line for commands whose time goes into the simulated op table: each op run on a
// chip model (an op-cache miss) is counted as it finishes, so a run on a cold op cache, which
// takes minutes, shows what it is doing. Drawn only on a terminal (sim/output/progress).
#pragma once

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

}  // namespace scoville::cli
