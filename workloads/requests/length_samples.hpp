// Request lengths drawn from a benchmark dataset's own samples instead of a uniform range: a
// table of (input, output) token counts, one row per sample of the dataset, from which each
// generated request takes one row, its input and output together (so a long prompt keeps the
// answer it came with). MLPerf's datasets vary widely (OpenOrca prompts from 48 to 1,021 tokens
// around a mean of 222), and the p99 TTFT and TPOT limits of its Server and Interactive scenarios
// are set by the long ones, which a narrow uniform range around the mean never draws.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace scoville::workloads {

struct LengthSample {
  int64_t input_tokens = 1;
  int64_t output_tokens = 1;
};

using LengthSamples = std::vector<LengthSample>;

// Reads a CSV of samples: '#' comment lines, then the header 'input_tokens,output_tokens', then
// one row per sample, both positive integers of at most `max_tokens`. Errors name the file, line
// and column.
LengthSamples parse_length_samples(const std::string& text, const std::string& display_name,
                                   int64_t max_tokens);
std::shared_ptr<const LengthSamples> read_length_samples(const std::string& path,
                                                         int64_t max_tokens);

// The samples' mean input and output tokens.
double mean_input_tokens(const LengthSamples& samples);
double mean_output_tokens(const LengthSamples& samples);

// The samples with every output scaled by one factor so that their mean is `mean_output`
// (rounded to the nearest token, at least 1): a dataset's reference answers stand for the
// lengths another model generates, in proportion.
LengthSamples with_mean_output(const LengthSamples& samples, double mean_output);

}  // namespace scoville::workloads
