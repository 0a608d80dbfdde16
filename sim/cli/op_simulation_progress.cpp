#include "sim/cli/op_simulation_progress.hpp"

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

OpCountOnLine::OpCountOnLine(output::ProgressReporter& line) {
  if (!line.on()) return;
  listening_ = true;
  engine::set_op_simulated_listener([this, &line](const std::string&, const std::string&, int64_t) {
    ++simulated_;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_draw_ < std::chrono::milliseconds(200)) return;
    last_draw_ = now;
    line.set_done(line.done(), std::to_string(simulated_) + " ops simulated");
  });
}

OpCountOnLine::~OpCountOnLine() {
  if (listening_) engine::set_op_simulated_listener({});
}

}  // namespace scoville::cli
