#include "sim/cli/serve_progress.hpp"

#include <cstdio>

#include "sim/engine/simulated_op_cost.hpp"

namespace scoville::cli {

namespace {
// Thousands of iterations a second would otherwise each rewrite the terminal line.
constexpr std::chrono::milliseconds kRedrawInterval{200};
}  // namespace

std::string serve_progress_label(Duration simulated, int64_t running, int64_t waiting,
                                 int64_t ops_simulated) {
  char b[160];
  std::snprintf(b, sizeof b, "t = %.2f s simulated, %lld running, %lld waiting", simulated.si(),
                static_cast<long long>(running), static_cast<long long>(waiting));
  std::string label = b;
  if (ops_simulated > 0) label += ", " + std::to_string(ops_simulated) + " ops simulated";
  return label;
}

ServeProgress::ServeProgress(bool quiet, serving::SchedulerObserver* forward) : forward_(forward) {
  if (!output::progress_wanted_here(quiet)) return;
  reporter_ = std::make_unique<output::ProgressReporter>("serve: iterations", 0, quiet);
  // Op-cache misses are counted into the label; the line is redrawn at the next iteration.
  engine::set_op_simulated_listener(
      [this](const std::string&, const std::string&, int64_t) { ++ops_simulated_; });
}

ServeProgress::~ServeProgress() { finish(); }

void ServeProgress::finish() {
  if (!reporter_) return;
  engine::set_op_simulated_listener({});
  reporter_->finish();
  reporter_.reset();
}

void ServeProgress::on_iteration(const serving::ObservedIteration& iteration) {
  ++iterations_;
  if (reporter_) {
    const auto now = std::chrono::steady_clock::now();
    if (iterations_ == 1 || now - last_draw_ >= kRedrawInterval) {
      last_draw_ = now;
      reporter_->set_done(iterations_, serve_progress_label(iteration.end, iteration.running,
                                                            iteration.waiting, ops_simulated_));
    }
  }
  if (forward_ != nullptr) forward_->on_iteration(iteration);
}

void ServeProgress::on_preemption(int pool, int64_t request, Duration at) {
  if (forward_ != nullptr) forward_->on_preemption(pool, request, at);
}

void ServeProgress::on_kv_transfer(const serving::ObservedKvTransfer& transfer) {
  if (forward_ != nullptr) forward_->on_kv_transfer(transfer);
}

}  // namespace scoville::cli
