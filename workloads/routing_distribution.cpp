#include "workloads/routing_distribution.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace scoville::workloads {

namespace {

std::vector<double> weights_of(const RoutingConfig& config, int64_t experts) {
  switch (config.distribution) {
    case RoutingDistribution::kZipf: {
      std::vector<double> w(static_cast<size_t>(experts));
      for (int64_t e = 0; e < experts; ++e) {
        w[static_cast<size_t>(e)] =
            1.0 / std::pow(static_cast<double>(e + 1), config.zipf_exponent);
      }
      return w;
    }
    case RoutingDistribution::kHistogram:
      return config.histogram;
    default:
      return std::vector<double>(static_cast<size_t>(experts), 1.0);
  }
}

// Walker/Vose alias table: one draw from a discrete distribution in O(1).
class AliasTable {
 public:
  explicit AliasTable(const std::vector<double>& weights)
      : probability_(weights.size()), alias_(weights.size()) {
    const double n = static_cast<double>(weights.size());
    const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
    std::vector<double> scaled(weights.size());
    std::vector<size_t> small;
    std::vector<size_t> large;
    for (size_t i = 0; i < weights.size(); ++i) {
      scaled[i] = weights[i] * n / sum;
      (scaled[i] < 1.0 ? small : large).push_back(i);
    }
    while (!small.empty() && !large.empty()) {
      const size_t s = small.back();
      small.pop_back();
      const size_t l = large.back();
      probability_[s] = scaled[s];
      alias_[s] = l;
      scaled[l] = (scaled[l] + scaled[s]) - 1.0;
      if (scaled[l] < 1.0) {
        large.pop_back();
        small.push_back(l);
      }
    }
    for (size_t i : large) probability_[i] = 1.0;
    for (size_t i : small) probability_[i] = 1.0;  // rounding leftovers
  }

  size_t draw(RngStream& rng) const {
    const size_t column =
        static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(probability_.size()) - 1));
    return rng.next_unit() < probability_[column] ? column : alias_[column];
  }

 private:
  std::vector<double> probability_;
  std::vector<size_t> alias_;
};

// Completes one token's top_k distinct experts by successive sampling without replacement, done
// exactly by walking the remaining weights (slow; used only when rejection keeps hitting experts
// already picked). Continuing from `picked` keeps the draw exact.
void pick_by_walk(const std::vector<double>& weights, int64_t top_k, RngStream& rng,
                  std::vector<size_t>& picked) {
  std::vector<bool> taken(weights.size(), false);
  for (size_t e : picked) taken[e] = true;
  while (static_cast<int64_t>(picked.size()) < top_k) {
    double remaining = 0.0;
    for (size_t e = 0; e < weights.size(); ++e) remaining += taken[e] ? 0.0 : weights[e];
    double target = rng.next_unit() * remaining;
    size_t chosen = weights.size();
    for (size_t e = 0; e < weights.size(); ++e) {
      if (taken[e] || weights[e] <= 0.0) continue;
      chosen = e;  // the last eligible one absorbs rounding at the top end
      target -= weights[e];
      if (target < 0.0) break;
    }
    taken[chosen] = true;
    picked.push_back(chosen);
  }
}

// Rejections per token before falling back to the walk: rare for moderate skew, and a bound on
// the time a heavily skewed distribution can take.
constexpr int kMaxRejectionsPerPick = 64;

}  // namespace

std::string to_string(RoutingDistribution d) {
  switch (d) {
    case RoutingDistribution::kExpected:
      return "expected";
    case RoutingDistribution::kUniform:
      return "uniform";
    case RoutingDistribution::kZipf:
      return "zipf";
    case RoutingDistribution::kHistogram:
      return "histogram";
  }
  return "expected";
}

std::vector<std::string> routing_distribution_names() {
  return {"expected", "uniform", "zipf", "histogram"};
}

RoutingConfig parse_routing_spec(const std::string& text) {
  RoutingConfig config;
  const std::string choices = "expected, uniform, zipf or zipf:S (0 <= S <= 8, e.g. zipf:1.2)";
  if (text == "expected") return config;
  if (text == "uniform") {
    config.distribution = RoutingDistribution::kUniform;
    return config;
  }
  if (text == "zipf" || text.rfind("zipf:", 0) == 0) {
    config.distribution = RoutingDistribution::kZipf;
    if (text == "zipf") return config;
    const std::string exponent = text.substr(5);
    size_t used = 0;
    double s = -1.0;
    try {
      s = std::stod(exponent, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != exponent.size() || !(s >= 0.0 && s <= kMaxZipfExponent)) {
      throw std::invalid_argument("zipf exponent '" + exponent + "': expected a number from 0 to " +
                                  std::to_string(static_cast<int>(kMaxZipfExponent)));
    }
    config.zipf_exponent = s;
    return config;
  }
  throw std::invalid_argument("unknown routing '" + text + "'; expected " + choices);
}

std::string to_spec(const RoutingConfig& config) {
  if (config.distribution != RoutingDistribution::kZipf) return to_string(config.distribution);
  std::ostringstream out;
  out << "zipf:" << config.zipf_exponent;
  return out.str();
}

std::string routing_config_problem(const RoutingConfig& config, int64_t experts, int64_t top_k) {
  if (experts < 1 || top_k < 1 || top_k > experts) {
    return "the model routes " + std::to_string(top_k) + " of " + std::to_string(experts) +
           " experts: expected an MoE model with 1 <= top_k <= experts";
  }
  if (config.distribution == RoutingDistribution::kZipf &&
      !(config.zipf_exponent >= 0.0 && config.zipf_exponent <= kMaxZipfExponent)) {
    return "zipf exponent " + std::to_string(config.zipf_exponent) + ": expected 0 to " +
           std::to_string(kMaxZipfExponent);
  }
  if (config.distribution != RoutingDistribution::kHistogram) return "";
  if (static_cast<int64_t>(config.histogram.size()) != experts) {
    return "histogram has " + std::to_string(config.histogram.size()) +
           " weights: expected one per routed expert (" + std::to_string(experts) + ")";
  }
  int64_t positive = 0;
  for (double w : config.histogram) {
    if (!(w >= 0.0) || !std::isfinite(w)) {
      return "histogram weight " + std::to_string(w) + ": expected finite and >= 0";
    }
    positive += w > 0.0 ? 1 : 0;
  }
  if (positive < top_k) {
    return "histogram gives weight to " + std::to_string(positive) +
           " experts: expected at least top_k (" + std::to_string(top_k) +
           "), as each token needs that many distinct experts";
  }
  return "";
}

std::vector<int64_t> draw_tokens_per_expert(const RoutingConfig& config, int64_t experts,
                                            int64_t top_k, int64_t tokens, RngStream& rng) {
  const std::string problem = routing_config_problem(config, experts, top_k);
  if (!problem.empty()) throw std::invalid_argument("draw_tokens_per_expert: " + problem);
  if (config.distribution == RoutingDistribution::kExpected) {
    throw std::invalid_argument("draw_tokens_per_expert: the expected path draws nothing");
  }
  const std::vector<double> weights = weights_of(config, experts);
  const AliasTable table(weights);
  std::vector<int64_t> counts(static_cast<size_t>(experts), 0);
  std::vector<size_t> picked;
  picked.reserve(static_cast<size_t>(top_k));
  for (int64_t t = 0; t < tokens; ++t) {
    picked.clear();
    int rejections = 0;
    while (static_cast<int64_t>(picked.size()) < top_k &&
           rejections < kMaxRejectionsPerPick * top_k) {
      const size_t e = table.draw(rng);
      if (std::find(picked.begin(), picked.end(), e) != picked.end()) {
        ++rejections;
      } else {
        picked.push_back(e);
      }
    }
    if (static_cast<int64_t>(picked.size()) < top_k) pick_by_walk(weights, top_k, rng, picked);
    for (size_t e : picked) ++counts[e];
  }
  return counts;
}

double routing_imbalance(const std::vector<int64_t>& tokens_per_expert) {
  if (tokens_per_expert.empty()) return 0.0;
  const int64_t total =
      std::accumulate(tokens_per_expert.begin(), tokens_per_expert.end(), int64_t{0});
  if (total == 0) return 0.0;
  const int64_t most = *std::max_element(tokens_per_expert.begin(), tokens_per_expert.end());
  const double mean = static_cast<double>(total) / static_cast<double>(tokens_per_expert.size());
  return static_cast<double>(most) / mean;
}

}  // namespace scoville::workloads
