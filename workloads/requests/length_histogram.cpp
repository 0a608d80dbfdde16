#include "workloads/requests/length_histogram.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sim/base/number_text.hpp"
#include "workloads/requests/request_pattern.hpp"

namespace scoville::workloads {
namespace {

std::optional<LengthBin> parse_bin(const std::string& token) {
  const size_t colon = token.find(':');
  if (colon == std::string::npos) return std::nullopt;
  const std::string range = token.substr(0, colon);
  // The separator is the first '-' after the first character (LO is not negative).
  const size_t dash = range.find('-', 1);
  if (dash == std::string::npos) return std::nullopt;
  const std::optional<double> lo = finite_number(range.substr(0, dash));
  const std::optional<double> hi = finite_number(range.substr(dash + 1));
  const std::optional<double> count = finite_number(token.substr(colon + 1));
  if (!lo || !hi || !count || *lo < 0 || !(*hi > *lo) || *hi > kMaxHistogramTokens || *count < 0 ||
      *count != std::floor(*count) || *count > static_cast<double>(kMaxHistogramRequests)) {
    return std::nullopt;
  }
  return LengthBin{*lo, *hi, static_cast<int64_t>(*count)};
}

}  // namespace

std::optional<std::vector<LengthBin>> parse_length_bins(const std::string& text) {
  std::istringstream in(text);
  std::vector<LengthBin> bins;
  std::string token;
  int64_t requests = 0;
  while (in >> token) {
    const std::optional<LengthBin> bin = parse_bin(token);
    if (!bin) return std::nullopt;
    if (!bins.empty() && bin->lo < bins.back().hi) return std::nullopt;
    requests += bin->count;  // each count is at most the limit: no overflow
    if (requests > kMaxHistogramRequests) return std::nullopt;
    bins.push_back(*bin);
  }
  if (bins.empty() || requests < 1) return std::nullopt;
  return bins;
}

int64_t histogram_requests(const std::vector<LengthBin>& bins) {
  int64_t n = 0;
  for (const LengthBin& b : bins) n += b.count;
  return n;
}

LengthSamples samples_from_output_histogram(const std::vector<LengthBin>& bins,
                                            int64_t input_tokens, double input_range_ratio) {
  const int64_t input_hi = std::max<int64_t>(1, input_tokens);
  const int64_t input_lo = lower_length(input_hi, input_range_ratio);
  const double input_span = static_cast<double>(input_hi - input_lo + 1);
  constexpr double kGoldenFraction = 0.6180339887498949;  // (sqrt 5 - 1) / 2
  LengthSamples samples;
  int64_t index = 0;
  for (const LengthBin& b : bins) {
    for (int64_t j = 0; j < b.count; ++j, ++index) {
      const double at =
          b.lo + (static_cast<double>(j) + 0.5) / static_cast<double>(b.count) * (b.hi - b.lo);
      const double u = std::fmod((static_cast<double>(index) + 0.5) * kGoldenFraction, 1.0);
      LengthSample s;
      s.output_tokens = std::max<int64_t>(1, std::llround(at));
      s.input_tokens =
          std::min(input_hi, input_lo + static_cast<int64_t>(std::floor(u * input_span)));
      samples.push_back(s);
    }
  }
  return samples;
}

}  // namespace scoville::workloads
