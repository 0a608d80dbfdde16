// A progress line for `scoville serve` on a terminal: the scheduler's iterations counted as they
// are scheduled (an open count: how many a scenario needs is not known before it runs), labelled
// with the simulated time reached, the sequences running and waiting, and the ops simulated on
// the chip model so far (a cold op cache is what makes a serving run take minutes). It watches the
// scheduler as any observer does and forwards to another (the --trace recorder), so results are
// the same with and without it. Drawn only on a terminal (sim/output/progress).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "sim/output/progress.hpp"
#include "sim/serving/scheduler_observer.hpp"

namespace scoville::cli {

class ServeProgress : public serving::SchedulerObserver {
 public:
  // `forward` (may be null) receives every call after this one.
  ServeProgress(bool quiet, serving::SchedulerObserver* forward);
  ~ServeProgress() override;
  ServeProgress(const ServeProgress&) = delete;
  ServeProgress& operator=(const ServeProgress&) = delete;

  // Whether a line is drawn (otherwise run_serving is given the forwarded observer directly).
  bool on() const { return reporter_ != nullptr; }
  // Clears the line before the command prints its results.
  void finish();

  void on_iteration(const serving::ObservedIteration& iteration) override;
  void on_preemption(int pool, int64_t request, Duration at) override;
  void on_kv_transfer(const serving::ObservedKvTransfer& transfer) override;

 private:
  serving::SchedulerObserver* forward_;
  std::unique_ptr<output::ProgressReporter> reporter_;
  int64_t iterations_ = 0;
  int64_t ops_simulated_ = 0;
  std::chrono::steady_clock::time_point last_draw_;
};

// The label of the line: "t = 12.35 s simulated, 5 running, 3 waiting, 120 ops simulated".
std::string serve_progress_label(Duration simulated, int64_t running, int64_t waiting,
                                 int64_t ops_simulated);

}  // namespace scoville::cli
