// Request generators: the InferenceX closed loop, open-loop Poisson and bursty (gamma) arrivals,
// and trace replay. Deterministic for a seed: lengths and gaps come from RngStreams named
// "requests.lengths" and "requests.arrivals", so changing the arrival process does not change the
// lengths drawn.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "sim/base/rng.hpp"
#include "workloads/request_sampling.hpp"

#include "workloads/requests/length_samples.hpp"
#include "workloads/requests/public_trace_formats.hpp"
#include "workloads/requests/request.hpp"
#include "workloads/requests/request_trace_reader.hpp"

namespace scoville::workloads {

enum class ArrivalKind {
  kClosedLoop,  // InferenceX: N clients, request rate infinite, max_concurrency = N
  kPoisson,     // open loop, exponential gaps at `rate`
  kGamma,       // open loop, gamma gaps at `rate` with shape `burstiness` (vLLM's naming)
  kTrace,       // replay of a request trace: Scoville's CSV or a public format
                // (public_trace_formats.hpp)
};

// Lengths: uniform integers in [floor(range_ratio x nominal), nominal], drawn independently for
// input and output (InferenceX's RANDOM_RANGE_RATIO = 0.8, its random dataset's semantics); or,
// with `samples`, one sample of a dataset per request, drawn uniformly (length_samples.hpp).
// The shortest length of the uniform draw around `nominal`: floor(range_ratio x nominal), at
// least one token.
int64_t lower_length(int64_t nominal, double range_ratio);

struct LengthSpec {
  LengthSpec() = default;
  LengthSpec(int64_t input, int64_t output, double ratio,
             std::shared_ptr<const LengthSamples> drawn_from = nullptr)
      : input_tokens(input),
        output_tokens(output),
        range_ratio(ratio),
        samples(std::move(drawn_from)) {}

  int64_t input_tokens = 1024;
  int64_t output_tokens = 1024;
  double range_ratio = 0.8;  // in (0, 1]; 1 gives fixed lengths
  // When set and not empty: each request takes one sample's input and output together; the
  // nominal lengths and range_ratio are then not used.
  std::shared_ptr<const LengthSamples> samples;
};

struct RequestPattern {
  ArrivalKind kind = ArrivalKind::kClosedLoop;
  LengthSpec lengths;       // not used by kTrace (the trace gives the lengths)
  int64_t concurrency = 1;  // kClosedLoop: N clients
  int64_t num_prompts = 0;  // 0: 10 x concurrency for kClosedLoop (InferenceX); required otherwise
  double rate = 1.0;        // kPoisson, kGamma: mean requests per second
  double burstiness = 1.0;  // kGamma: shape k; gaps have CV = 1/sqrt(k); k = 1 is Poisson
  int64_t max_concurrency = 0;                    // open loop and trace: 0 = unlimited
  std::string trace_path;                         // kTrace
  TraceLimits trace_limits;                       // kTrace
  TraceFormat trace_format = TraceFormat::kAuto;  // kTrace: detected from the file by default
  TraceSelection trace_selection;                 // kTrace: window, row limit, time scale
  // How the requests ask their tokens drawn (scenario key `sampling`): greedy by default, as
  // InferenceX's client. A stack that sorts the vocabulary for top-p then prices that sort.
  RequestSampling sampling = RequestSampling::kGreedy;
};

// Checks the pattern and builds the plan. Bad parameters throw InputError with the key named
// under `key_prefix` (e.g. "workload.rate"); a trace's errors name the trace file.
RequestPlan make_request_plan(const RequestPattern& pattern, uint64_t seed,
                              const std::string& key_prefix = "workload");

// Draw from a gamma distribution with shape k > 0 and scale 1 (Marsaglia and Tsang, 2000, with
// the u^(1/k) boost for k < 1). Portable: built on RngStream only, never on std:: distributions.
double draw_gamma(RngStream& rng, double shape);

}  // namespace scoville::workloads
