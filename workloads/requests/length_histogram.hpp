// Request lengths from a published histogram of output lengths. The ML.ENERGY Leaderboard v3.0
// publishes, per configuration, the histogram of the output tokens its requests generated (50
// equal bins) but not the lengths themselves. Replaying that histogram instead of a narrow
// uniform range around the mean matters for serving: under a batch limit the running batch holds
// a request for as long as it generates, so long answers stay in it longer, and the context each
// decode step reads is the length-biased mean (mean + variance / mean) / 2 of the outputs, not
// half their mean: about twice as long where the lengths spread as widely as a chat model's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/requests/length_samples.hpp"

namespace scoville::workloads {

struct LengthBin {
  double lo = 0;  // tokens, inclusive
  double hi = 0;  // tokens, above lo
  int64_t count = 0;
};

// The most requests a histogram may hold: samples_from_output_histogram() makes one sample per
// request (16 bytes each).
inline constexpr int64_t kMaxHistogramRequests = 1000000;
// The longest output a bin may reach, tokens (ten times the longest context of any model in
// workloads/models).
inline constexpr double kMaxHistogramTokens = 1.0e7;

// Parses 'LO-HI:COUNT' bins separated by spaces (e.g. "120-772.96:33 772.96-1425.92:56"): LO >=
// 0, LO < HI <= kMaxHistogramTokens, COUNT a whole number >= 0, bins in increasing order without
// overlap, from 1 to kMaxHistogramRequests requests in all. nullopt on any other text.
std::optional<std::vector<LengthBin>> parse_length_bins(const std::string& text);

// The histogram's requests in all.
int64_t histogram_requests(const std::vector<LengthBin>& bins);

// One sample per request of the histogram: a bin's COUNT outputs spread evenly across it (at
// (j + 0.5) / COUNT of its width, rounded, at least 1 token): the published resolution, nothing
// finer invented. Inputs are not in the histogram: each sample's input is spread over the
// uniform integers [lower_length(input_tokens, input_range_ratio), input_tokens], as the
// nominal lengths' draw would give (request_pattern.hpp), by a golden-ratio sequence over the
// samples, so that inputs and outputs are not paired by size.
LengthSamples samples_from_output_histogram(const std::vector<LengthBin>& bins,
                                            int64_t input_tokens, double input_range_ratio);

}  // namespace scoville::workloads
