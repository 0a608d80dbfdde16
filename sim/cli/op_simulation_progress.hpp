// A progress line for commands whose time goes into the simulated op table: each op run on a
// chip model (an op-cache miss) is counted as it finishes, so a run on a cold op cache, which
// takes minutes, shows what it is doing. Drawn only on a terminal (sim/output/progress).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "sim/output/progress.hpp"
#include "sim/serving/scheduler_observer.hpp"

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
// alive, what happens inside the point in progress is shown on `line`'s label between its steps,
// so that one slow point (a cold op cache, or a search point of a 2,048-chip system that takes
// 20 s warm) does not leave the line still: the ops simulated on the chip model so far
// ("412 ops simulated") and, where the command lets it watch the point's scheduler (inferencex),
// the simulated time reached and the sequences running and waiting ("tp8 N=64: t=3.20 s, 64
// running, 412 ops"). Redrawn at most five times a second; nothing when the line is off. As an
// observer it forwards every event to the one behind it (a timeline recorder), so results do not
// change.
class PointActivity : public serving::SchedulerObserver {
 public:
  explicit PointActivity(output::ProgressReporter& line);
  ~PointActivity() override;
  PointActivity(const PointActivity&) = delete;
  PointActivity& operator=(const PointActivity&) = delete;

  // The point about to run (its mapping label and concurrency) and the observer behind this one
  // (may be null). Returns what to give run_serving: this, or `forward` when the line is off.
  serving::SchedulerObserver* watch(const std::string& point, serving::SchedulerObserver* forward);

  void on_iteration(const serving::ObservedIteration& iteration) override;
  void on_preemption(int pool, int64_t request, Duration at) override;
  void on_kv_transfer(const serving::ObservedKvTransfer& transfer) override;

 private:
  void draw(bool force);

  output::ProgressReporter& line_;
  bool listening_ = false;
  int64_t simulated_ = 0;
  std::string point_;
  std::string state_;  // the point's scheduler state, empty before its first iteration
  serving::SchedulerObserver* forward_ = nullptr;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace scoville::cli
