// Drawn MoE routing: how many tokens each routed expert receives in one iteration of one layer.
// Each token picks top_k distinct experts; expert e is picked with probability proportional to its
// weight w_e, successively without replacement (the first pick by w, the next among the rest by w,
// ...), which is exactly uniform top-k for equal weights. Weights:
//   uniform    w_e = 1
//   zipf       w_e = 1 / (e + 1)^s: expert 0 is the hottest (the ranking is arbitrary, the skew
//              is what matters for imbalance)
//   histogram  w_e given, e.g. measured tokens per expert of a real trace
// Draws come from an RngStream (sim/base/rng.hpp), so the same seed gives the same counts on every
// platform. The default path of the decomposition stays the expectation (moe_routing.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/rng.hpp"

namespace scoville::workloads {

enum class RoutingDistribution {
  kExpected,  // no draw: experts touched in expectation, tokens split evenly (moe_routing.hpp)
  kUniform,
  kZipf,
  kHistogram,
};

std::string to_string(RoutingDistribution d);
std::vector<std::string> routing_distribution_names();  // "expected", "uniform", ...

struct RoutingConfig {
  RoutingDistribution distribution = RoutingDistribution::kExpected;
  double zipf_exponent = 1.0;     // s >= 0; 0 is uniform
  std::vector<double> histogram;  // one non-negative weight per routed expert
  uint64_t seed = 0;              // run seed
  uint64_t iteration = 0;         // iterations of one run draw independently
};

// A routing as written on the command line or in a study: "expected", "uniform", "zipf" (exponent
// 1) or "zipf:S" (0 <= S <= kMaxZipfExponent). Histograms need a list, so they are not written
// this way. Throws std::invalid_argument with the sentence to show (the choices) otherwise. The
// seed and iteration stay 0: the caller sets them.
RoutingConfig parse_routing_spec(const std::string& text);
std::string to_spec(const RoutingConfig& config);  // the inverse ("zipf:1.2")

// Largest Zipf exponent accepted: beyond it the hottest expert takes almost all the weight and
// the draw degenerates into "the same top_k experts always".
constexpr double kMaxZipfExponent = 8.0;

// Empty when `config` can route `top_k` of `experts`; otherwise what is wrong, as a sentence
// ("histogram has 3 weights: expected one per routed expert (256)").
std::string routing_config_problem(const RoutingConfig& config, int64_t experts, int64_t top_k);

// Tokens routed to each expert (size `experts`, summing to tokens x top_k). Throws
// std::invalid_argument when routing_config_problem() is not empty or the distribution is
// kExpected (which draws nothing).
std::vector<int64_t> draw_tokens_per_expert(const RoutingConfig& config, int64_t experts,
                                            int64_t top_k, int64_t tokens, RngStream& rng);

// Load imbalance of one layer: the busiest expert's tokens over the mean over all experts
// (tokens x top_k / experts). 1 is perfect balance.
double routing_imbalance(const std::vector<int64_t>& tokens_per_expert);

}  // namespace scoville::workloads
