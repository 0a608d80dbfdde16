#include "sim/cli/op_simulation_progress.hpp"

#include <cstdio>
#include <utility>

#include "sim/engine/simulated_op_cost.hpp"

namespace scoville::cli {

OpSimulationProgress::OpSimulationProgress(const std::string& what, bool quiet) {
  if (!output::progress_wanted_here(quiet)) return;
  // An open count (total 0): how many ops the cold cache still needs is not known in advance.
  reporter_ = std::make_unique<output::ProgressReporter>(what + ": ops simulated", 0, quiet);
  output::ProgressReporter* reporter = reporter_.get();
  engine::set_op_simulated_listener(
      [reporter](const std::string& chip, const std::string& op, int64_t) {
        reporter->step(op.empty() ? chip : chip + " " + op);
      });
}

void OpSimulationProgress::finish() {
  if (!reporter_) return;
  engine::set_op_simulated_listener({});
  reporter_->finish();
  reporter_.reset();
}

OpSimulationProgress::~OpSimulationProgress() { finish(); }

PointActivity::PointActivity(output::ProgressReporter& line) : line_(line) {
  if (!line.on()) return;
  listening_ = true;
  engine::set_op_simulated_listener([this](const std::string&, const std::string&, int64_t) {
    ++simulated_;
    draw(false);
  });
}

PointActivity::~PointActivity() {
  if (listening_) engine::set_op_simulated_listener({});
}

serving::SchedulerObserver* PointActivity::watch(const std::string& point,
                                                 serving::SchedulerObserver* forward) {
  forward_ = forward;
  if (!listening_) return forward;
  point_ = point;
  state_.clear();
  return this;
}

void PointActivity::draw(bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(200)) return;
  last_draw_ = now;
  std::string label = state_.empty() ? "" : point_ + ": " + state_;
  if (simulated_ > 0) {
    label += label.empty() ? std::to_string(simulated_) + " ops simulated"
                           : ", " + std::to_string(simulated_) + " ops";
  }
  line_.set_done(line_.done(), label);
}

void PointActivity::on_iteration(const serving::ObservedIteration& iteration) {
  // Short enough for the line's 100 columns beside the bar: "t=3.20 s, 64 running, 2 waiting".
  char b[120];
  std::snprintf(b, sizeof b, "t=%.2f s, %lld running", iteration.end.si(),
                static_cast<long long>(iteration.running));
  std::string state = b;
  if (iteration.waiting > 0) state += ", " + std::to_string(iteration.waiting) + " waiting";
  state_ = std::move(state);
  draw(false);
  if (forward_ != nullptr) forward_->on_iteration(iteration);
}

void PointActivity::on_preemption(int pool, int64_t request, Duration at) {
  if (forward_ != nullptr) forward_->on_preemption(pool, request, at);
}

void PointActivity::on_kv_transfer(const serving::ObservedKvTransfer& transfer) {
  if (forward_ != nullptr) forward_->on_kv_transfer(transfer);
}

}  // namespace scoville::cli
