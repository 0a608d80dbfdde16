// The request-sampling names every input and output shares (--sampling, a scenario's
// requests.sampling, the energy rows' sampling column, the HDF5 `sampling` attribute).
#include <catch2/catch.hpp>

#include <string>

#include "workloads/request_sampling.hpp"

using namespace scoville::workloads;

TEST_CASE("request sampling: each name parses to its kind and prints back", "[workloads]") {
  REQUIRE(request_sampling_names().size() == 2);
  for (const std::string& name : request_sampling_names()) {
    const auto parsed = parse_request_sampling(name);
    REQUIRE(parsed.has_value());
    CHECK(to_string(*parsed) == name);
  }
  CHECK(parse_request_sampling("greedy") == RequestSampling::kGreedy);
  CHECK(parse_request_sampling("top-p") == RequestSampling::kTopP);
  CHECK(request_sampling_expected() == "greedy or top-p");
}

TEST_CASE("request sampling: any other text is refused", "[workloads]") {
  for (const std::string bad : {"", "Top-P", "top_p", "topp", "nucleus", "greedy ", " top-p"}) {
    INFO(bad);
    CHECK_FALSE(parse_request_sampling(bad).has_value());
  }
}
