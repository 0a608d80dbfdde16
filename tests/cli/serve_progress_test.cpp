// The serve progress observer (sim/cli/serve_progress): its label, and that it forwards every
// scheduler event to the observer behind it (the --trace recorder), drawn or not.
#include <catch2/catch.hpp>

#include "sim/cli/serve_progress.hpp"

namespace {

using namespace scoville;

struct CountingObserver : serving::SchedulerObserver {
  int iterations = 0, preemptions = 0, transfers = 0;
  void on_iteration(const serving::ObservedIteration&) override { ++iterations; }
  void on_preemption(int, int64_t, Duration) override { ++preemptions; }
  void on_kv_transfer(const serving::ObservedKvTransfer&) override { ++transfers; }
};

}  // namespace

TEST_CASE("serve progress label names the simulated time, the queues and the ops simulated") {
  CHECK(cli::serve_progress_label(Duration(12.345), 5, 3, 0) ==
        "t = 12.35 s simulated, 5 running, 3 waiting");
  CHECK(cli::serve_progress_label(Duration(0.5), 1, 0, 120) ==
        "t = 0.50 s simulated, 1 running, 0 waiting, 120 ops simulated");
}

TEST_CASE("serve progress forwards every scheduler event") {
  CountingObserver behind;
  cli::ServeProgress progress(/*quiet=*/true, &behind);
  CHECK_FALSE(progress.on());
  serving::ObservedIteration iteration;
  progress.on_iteration(iteration);
  progress.on_iteration(iteration);
  progress.on_preemption(0, 1, Duration(0.1));
  progress.on_kv_transfer(serving::ObservedKvTransfer{});
  CHECK(behind.iterations == 2);
  CHECK(behind.preemptions == 1);
  CHECK(behind.transfers == 1);
  cli::ServeProgress alone(/*quiet=*/true, nullptr);
  alone.on_iteration(iteration);  // nothing behind it: no call through a null observer
}
