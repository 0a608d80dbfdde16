#include "workloads/requests/request_pattern.hpp"

#include <cmath>
#include <limits>

#include "sim/base/error.hpp"

namespace scoville::workloads {
namespace {

// Upper bounds that keep a plan in memory and its arithmetic exact; larger asks are refused.
constexpr int64_t kMaxRequests = 10'000'000;
constexpr int64_t kMaxTokens = 10'000'000;
constexpr double kPi = 3.14159265358979323846;

void check_pattern(const RequestPattern& p, const std::string& prefix) {
  Diagnostics d;
  const SourceLocation where{};
  const auto key = [&](const char* name) { return prefix + "." + name; };
  const bool generated = p.kind != ArrivalKind::kTrace;
  if (generated) {
    if (p.lengths.input_tokens < 1 || p.lengths.input_tokens > kMaxTokens) {
      d.error(where, key("input_tokens"),
              "expected an integer in [1, " + std::to_string(kMaxTokens) + "]");
    }
    if (p.lengths.output_tokens < 1 || p.lengths.output_tokens > kMaxTokens) {
      d.error(where, key("output_tokens"),
              "expected an integer in [1, " + std::to_string(kMaxTokens) + "]");
    }
    if (!(p.lengths.range_ratio > 0.0 && p.lengths.range_ratio <= 1.0)) {
      d.error(where, key("range_ratio"), "expected a number in (0, 1]");
    }
  }
  if (p.kind == ArrivalKind::kClosedLoop) {
    if (p.concurrency < 1 || p.concurrency > kMaxRequests) {
      d.error(where, key("concurrency"),
              "expected an integer in [1, " + std::to_string(kMaxRequests) + "]");
    }
  }
  if (generated && (p.num_prompts < 0 || p.num_prompts > kMaxRequests ||
                    (p.kind != ArrivalKind::kClosedLoop && p.num_prompts == 0))) {
    d.error(where, key("num_prompts"),
            "expected an integer in [1, " + std::to_string(kMaxRequests) + "]" +
                (p.kind == ArrivalKind::kClosedLoop ? " (or 0 for 10 x concurrency)" : ""));
  }
  if (p.kind == ArrivalKind::kPoisson || p.kind == ArrivalKind::kGamma) {
    if (!(p.rate > 0.0 && std::isfinite(p.rate))) {
      d.error(where, key("rate"), "expected a positive, finite number of requests per second");
    }
  }
  if (p.kind == ArrivalKind::kGamma && !(p.burstiness > 0.0 && std::isfinite(p.burstiness))) {
    d.error(where, key("burstiness"), "expected a positive gamma shape (1 is Poisson)");
  }
  if (p.max_concurrency < 0 || p.max_concurrency > kMaxRequests) {
    d.error(where, key("max_concurrency"),
            "expected an integer in [0, " + std::to_string(kMaxRequests) + "] (0: unlimited)");
  }
  if (p.kind == ArrivalKind::kTrace && p.trace_path.empty()) {
    d.error(where, key("trace"), "expected the path of a request trace CSV");
  }
  d.throw_if_any();
}

}  // namespace

int64_t lower_length(int64_t nominal, double range_ratio) {
  // InferenceX's random dataset draws from [int(nominal * ratio), nominal]; at least one token.
  const auto lo = static_cast<int64_t>(std::floor(static_cast<double>(nominal) * range_ratio));
  return lo < 1 ? 1 : lo;
}

double draw_gamma(RngStream& rng, double shape) {
  if (shape < 1.0) {
    // Boost: G(k) = G(k + 1) * U^(1/k).
    const double u = 1.0 - rng.next_unit();  // (0, 1]
    return draw_gamma(rng, shape + 1.0) * std::pow(u, 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    // Standard normal by Box-Muller (one of the pair).
    const double u1 = 1.0 - rng.next_unit();  // (0, 1]: log is finite
    const double u2 = rng.next_unit();
    const double x = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
    const double t = 1.0 + c * x;
    if (t <= 0.0) continue;
    const double v = t * t * t;
    const double u = 1.0 - rng.next_unit();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

RequestPlan make_request_plan(const RequestPattern& pattern, uint64_t seed,
                              const std::string& key_prefix) {
  check_pattern(pattern, key_prefix);
  if (pattern.kind == ArrivalKind::kTrace) {
    RequestPlan plan = read_trace_file(pattern.trace_path, pattern.trace_format,
                                       pattern.trace_selection, pattern.trace_limits);
    plan.max_concurrency = pattern.max_concurrency;
    return plan;
  }

  RequestPlan plan;
  int64_t count = pattern.num_prompts;
  if (pattern.kind == ArrivalKind::kClosedLoop) {
    if (count == 0) count = 10 * pattern.concurrency;  // InferenceX: num_prompts = 10 x conc
    plan.max_concurrency = pattern.concurrency;
  } else {
    plan.max_concurrency = pattern.max_concurrency;
  }

  RngStream lengths(seed, "requests.lengths");
  RngStream arrivals(seed, "requests.arrivals");
  const LengthSpec& l = pattern.lengths;
  const int64_t in_lo = lower_length(l.input_tokens, l.range_ratio);
  const int64_t out_lo = lower_length(l.output_tokens, l.range_ratio);
  plan.requests.reserve(static_cast<size_t>(count));
  double clock = 0.0;  // vLLM sends the first request at once and sleeps after each one
  for (int64_t i = 0; i < count; ++i) {
    Request r;
    r.id = i;
    if (l.samples && !l.samples->empty()) {
      const LengthSample& sample = (*l.samples)[static_cast<size_t>(
          lengths.uniform_int(0, static_cast<int64_t>(l.samples->size()) - 1))];
      r.input_tokens = sample.input_tokens;
      r.output_tokens = sample.output_tokens;
    } else {
      r.input_tokens = lengths.uniform_int(in_lo, l.input_tokens);
      r.output_tokens = lengths.uniform_int(out_lo, l.output_tokens);
    }
    r.arrival = Duration(clock);
    plan.requests.push_back(r);
    switch (pattern.kind) {
      case ArrivalKind::kPoisson:
        clock += -std::log(1.0 - arrivals.next_unit()) / pattern.rate;
        break;
      case ArrivalKind::kGamma:
        // vLLM: gamma(shape = burstiness, scale = 1 / (rate x burstiness)); mean gap 1 / rate.
        clock += draw_gamma(arrivals, pattern.burstiness) / (pattern.rate * pattern.burstiness);
        break;
      default:
        break;  // closed loop: every request is available at time 0
    }
  }
  return plan;
}

}  // namespace scoville::workloads
