// Request lengths from a published output-length histogram (length_histogram.hpp).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "workloads/requests/length_histogram.hpp"

using namespace scoville::workloads;

TEST_CASE("output-length bins parse as the leaderboard's histogram is written") {
  const auto bins = parse_length_bins("120-772.96:3 772.96-1425.92:1  1425.92-2078.88:0");
  REQUIRE(bins);
  REQUIRE(bins->size() == 3);
  CHECK((*bins)[0].lo == 120.0);
  CHECK((*bins)[0].hi == 772.96);
  CHECK((*bins)[0].count == 3);
  CHECK((*bins)[2].count == 0);
  CHECK(histogram_requests(*bins) == 4);
  // The limit itself is accepted.
  CHECK(parse_length_bins("0-10:600000 10-20:400000"));
}

TEST_CASE("malformed output-length bins are refused") {
  for (const std::string bad :
       {"", "   ", "120-772:", "120:3", "772-120:3", "120-120:3", "-5-10:2", "0-10:2.5", "0-10:-1",
        "0-10:x", "0-10:1 5-20:1", "0-10:0", "0-10:1,10-20:1", "0-1e999:1", "0-10:1000001",
        "0-10:600000 10-20:400001", "0-10000001:1"}) {
    INFO(bad);
    CHECK_FALSE(parse_length_bins(bad));
  }
}

TEST_CASE("samples spread each bin's requests evenly and keep the input range's mean") {
  // 4 requests in [0, 100), 2 in [100, 300): outputs at the bins' even quantiles.
  const std::vector<LengthBin> bins{{0, 100, 4}, {100, 300, 2}};
  const LengthSamples s = samples_from_output_histogram(bins, 1000, 0.8);
  REQUIRE(s.size() == 6);
  const std::vector<int64_t> outputs{13, 38, 63, 88, 150, 250};  // 12.5 rounds to 13
  for (size_t i = 0; i < s.size(); ++i) CHECK(s[i].output_tokens == outputs[i]);
  for (const LengthSample& x : s) {
    CHECK(x.input_tokens >= 800);
    CHECK(x.input_tokens <= 1000);
  }
  // Many samples: the inputs' mean is the uniform integers' 900 within a token or two.
  const LengthSamples many = samples_from_output_histogram({{0, 10, 5000}}, 1000, 0.8);
  double sum = 0;
  for (const LengthSample& x : many) sum += static_cast<double>(x.input_tokens);
  CHECK(sum / 5000.0 == Approx(900.0).margin(2.0));
  // An output never rounds to zero tokens.
  CHECK(samples_from_output_histogram({{0, 0.4, 1}}, 10, 1.0)[0].output_tokens == 1);
  CHECK(samples_from_output_histogram({{0, 0.4, 1}}, 10, 1.0)[0].input_tokens == 10);
}
