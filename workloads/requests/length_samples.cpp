#include "workloads/requests/length_samples.hpp"

#include <cmath>
#include <sstream>
#include <string_view>

#include "sim/base/error.hpp"
#include "sim/base/utf8.hpp"
#include "sim/base/yaml_reader.hpp"
#include "workloads/requests/csv_fields.hpp"

namespace scoville::workloads {
LengthSamples parse_length_samples(const std::string& text, const std::string& display_name,
                                   int64_t max_tokens) {
  require_utf8(text, display_name, true);
  LengthSamples samples;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  bool header_seen = false;
  while (std::getline(in, line)) {
    ++number;
    if (skipped_line(line)) continue;
    const std::vector<CsvField> fields = split_csv_fields(line);
    if (!header_seen) {
      if (fields.size() != 2 || fields[0].text != "input_tokens" ||
          fields[1].text != "output_tokens") {
        throw InputError(SourceLocation{display_name, number, 1}, "",
                         "expected the header 'input_tokens,output_tokens'");
      }
      header_seen = true;
      continue;
    }
    if (fields.size() != 2) {
      throw InputError(
          SourceLocation{display_name, number, 1}, "",
          "expected 2 fields (input_tokens,output_tokens), found " + std::to_string(fields.size()));
    }
    LengthSample s;
    const char* names[2] = {"input_tokens", "output_tokens"};
    int64_t* values[2] = {&s.input_tokens, &s.output_tokens};
    for (int i = 0; i < 2; ++i) {
      if (!parse_count(fields[i].text, *values[i]) || *values[i] < 1 || *values[i] > max_tokens) {
        throw InputError(SourceLocation{display_name, number, fields[i].column}, names[i],
                         "expected a whole number of tokens in [1, " + std::to_string(max_tokens) +
                             "], found '" + std::string(fields[i].text) + "'");
      }
    }
    samples.push_back(s);
  }
  if (samples.empty()) {
    throw InputError(SourceLocation{display_name, number, 0}, "",
                     header_seen ? "expected at least one sample after the header"
                                 : "expected the header 'input_tokens,output_tokens' and samples");
  }
  return samples;
}

std::shared_ptr<const LengthSamples> read_length_samples(const std::string& path,
                                                         int64_t max_tokens) {
  return std::make_shared<const LengthSamples>(
      parse_length_samples(read_text_file(path), path, max_tokens));
}

namespace {

double mean_of(const LengthSamples& samples, int64_t LengthSample::*tokens) {
  double sum = 0;
  for (const LengthSample& s : samples) sum += static_cast<double>(s.*tokens);
  return samples.empty() ? 0.0 : sum / static_cast<double>(samples.size());
}

}  // namespace

double mean_input_tokens(const LengthSamples& samples) {
  return mean_of(samples, &LengthSample::input_tokens);
}

double mean_output_tokens(const LengthSamples& samples) {
  return mean_of(samples, &LengthSample::output_tokens);
}

LengthSamples with_mean_output(const LengthSamples& samples, double mean_output) {
  const double current = mean_output_tokens(samples);
  const double scale = current > 0 ? mean_output / current : 1.0;
  LengthSamples scaled = samples;
  for (LengthSample& s : scaled) {
    const double v = std::round(static_cast<double>(s.output_tokens) * scale);
    s.output_tokens = v < 1.0 ? 1 : static_cast<int64_t>(v);
  }
  return scaled;
}

}  // namespace scoville::workloads
