// A request shape on a system: the prefill of `batch` prompts of `isl` tokens, then the decode
// of `osl` tokens (sampled steps, decode_sampling.hpp), each iteration on the SystemEngine; per
// phase the time, energy and their breakdown per component. The constructor elaborates the
// design, run() simulates: construct every study of a process first (`scoville ablate`).
#pragma once

#include <functional>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/engine/system_engine.hpp"

namespace scoville::engine {

struct SystemStudyConfig {
  int64_t batch = 1;
  int64_t isl = 1024;
  int64_t osl = 128;
};

struct SystemPhaseResult {
  std::string phase;   // "prefill" or "decode"
  int64_t tokens = 0;  // prompt tokens (prefill) or generated tokens (decode), all sequences
  int64_t iterations = 0;
  SystemIterationResult total;  // weighted sum over the phase's iterations
};

struct SystemStudyResult {
  std::vector<SystemPhaseResult> phases;
  int64_t engine_iterations = 0;  // iterations simulated
};

// One simulated iteration for a timeline: what it stood for and its critical path.
struct SystemTimelineIteration {
  std::string phase;  // "prefill" or "decode"
  int64_t context = 0;
  double weight = 1.0;  // real iterations this one stands for (decode samples)
  SystemIterationResult result;
  std::vector<TimelineSpan> spans;
};

// Adds b x w into a (every time, energy and counter field).
void accumulate(SystemIterationResult& a, const SystemIterationResult& b, double w);

class SystemStudy {
 public:
  SystemStudy(SystemSetup setup, SystemStudyConfig config);
  // `timeline` (optional) receives every simulated iteration's critical path; results are the
  // same with and without it.
  SystemStudyResult run(std::vector<SystemTimelineIteration>* timeline = nullptr);
  // How many engine iterations run() simulates: the prefill and each sampled decode step.
  int64_t iterations() const;
  // Told after each simulated iteration what it was ("prefill", "decode at context 8448"): a
  // progress hook for the command line; it never affects a result.
  void on_iteration(std::function<void(const std::string& label)> listener) {
    on_iteration_ = std::move(listener);
  }
  const SystemEngine& engine() const { return *engine_; }
  const SystemStudyConfig& config() const { return config_; }

 private:
  std::unique_ptr<SystemEngine> engine_;
  SystemStudyConfig config_;
  std::function<void(const std::string&)> on_iteration_;
};

}  // namespace scoville::engine
