// Request generators: InferenceX closed loop, Poisson and gamma arrivals (request_pattern.hpp).
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "workloads/requests/request_pattern.hpp"

using namespace scoville;
using namespace scoville::workloads;

namespace {

std::vector<double> gaps(const RequestPlan& plan) {
  std::vector<double> out;
  for (size_t i = 1; i < plan.requests.size(); ++i) {
    out.push_back(plan.requests[i].arrival.si() - plan.requests[i - 1].arrival.si());
  }
  return out;
}

double mean(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double cv(const std::vector<double>& v) {
  const double m = mean(v);
  double s = 0.0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size())) / m;
}

std::string error_text(const RequestPattern& p) {
  try {
    make_request_plan(p, 1);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("closed loop is InferenceX's: 10 x N prompts, all at once, N in flight", "[requests]") {
  RequestPattern p;
  p.kind = ArrivalKind::kClosedLoop;
  p.concurrency = 16;
  p.lengths = {100, 50, 0.8};
  const RequestPlan plan = make_request_plan(p, 7);
  REQUIRE(plan.requests.size() == static_cast<size_t>(10 * p.concurrency));
  CHECK(plan.max_concurrency == p.concurrency);
  std::set<int64_t> inputs, outputs;
  for (size_t i = 0; i < plan.requests.size(); ++i) {
    const Request& r = plan.requests[i];
    CHECK(r.id == static_cast<int64_t>(i));
    CHECK(r.arrival.si() == 0.0);
    CHECK(r.input_tokens >= static_cast<int64_t>(0.8 * p.lengths.input_tokens));
    CHECK(r.input_tokens <= p.lengths.input_tokens);
    CHECK(r.output_tokens >= static_cast<int64_t>(0.8 * p.lengths.output_tokens));
    CHECK(r.output_tokens <= p.lengths.output_tokens);
    inputs.insert(r.input_tokens);
    outputs.insert(r.output_tokens);
  }
  // Both ends of the inclusive range occur among 160 draws of 21 (resp. 11) values.
  CHECK(*inputs.begin() == static_cast<int64_t>(0.8 * p.lengths.input_tokens));
  CHECK(*inputs.rbegin() == p.lengths.input_tokens);
  CHECK(*outputs.begin() == static_cast<int64_t>(0.8 * p.lengths.output_tokens));
  CHECK(*outputs.rbegin() == p.lengths.output_tokens);

  p.num_prompts = 5;  // an explicit count overrides 10 x N
  CHECK(make_request_plan(p, 7).requests.size() == 5);
}

TEST_CASE("request plans are deterministic for a seed and differ between seeds", "[requests]") {
  RequestPattern p;
  p.kind = ArrivalKind::kPoisson;
  p.rate = 3.0;
  p.num_prompts = 200;
  const RequestPlan a = make_request_plan(p, 42);
  const RequestPlan b = make_request_plan(p, 42);
  const RequestPlan c = make_request_plan(p, 43);
  bool lengths_differ = false;
  for (size_t i = 0; i < a.requests.size(); ++i) {
    CHECK(a.requests[i].arrival == b.requests[i].arrival);
    CHECK(a.requests[i].input_tokens == b.requests[i].input_tokens);
    CHECK(a.requests[i].output_tokens == b.requests[i].output_tokens);
    lengths_differ = lengths_differ || a.requests[i].input_tokens != c.requests[i].input_tokens;
  }
  CHECK(lengths_differ);

  // Lengths come from their own stream: the arrival process does not change them.
  RequestPattern g = p;
  g.kind = ArrivalKind::kGamma;
  g.burstiness = 0.5;
  const RequestPlan d = make_request_plan(g, 42);
  for (size_t i = 0; i < a.requests.size(); ++i) {
    CHECK(a.requests[i].input_tokens == d.requests[i].input_tokens);
  }
}

TEST_CASE("Poisson arrivals: first at 0, exponential gaps at the rate", "[requests]") {
  RequestPattern p;
  p.kind = ArrivalKind::kPoisson;
  p.rate = 5.0;
  p.num_prompts = 20001;
  const RequestPlan plan = make_request_plan(p, 3);
  CHECK(plan.requests.front().arrival.si() == 0.0);
  CHECK(plan.max_concurrency == 0);
  const std::vector<double> g = gaps(plan);
  // 20000 exponential gaps: standard error of the mean and of the CV about 0.7%.
  CHECK(mean(g) == Approx(1.0 / p.rate).epsilon(0.03));
  CHECK(cv(g) == Approx(1.0).epsilon(0.05));
}

TEST_CASE("gamma arrivals keep the rate and have CV 1 / sqrt(burstiness)", "[requests]") {
  for (const double shape : {0.25, 1.0, 4.0}) {
    RequestPattern p;
    p.kind = ArrivalKind::kGamma;
    p.rate = 2.0;
    p.burstiness = shape;
    p.num_prompts = 40001;
    const std::vector<double> g = gaps(make_request_plan(p, 11));
    INFO("burstiness " << shape);
    CHECK(mean(g) == Approx(1.0 / p.rate).epsilon(0.05));
    CHECK(cv(g) == Approx(1.0 / std::sqrt(shape)).epsilon(0.06));
  }
}

TEST_CASE("bad request patterns name the key", "[requests]") {
  RequestPattern p;
  p.kind = ArrivalKind::kPoisson;
  p.num_prompts = 10;
  p.rate = 0.0;
  CHECK_THAT(error_text(p), Catch::Contains("workload.rate"));
  p.rate = 1.0;
  p.num_prompts = 0;
  CHECK_THAT(error_text(p), Catch::Contains("workload.num_prompts"));
  p.num_prompts = 10;
  p.lengths.range_ratio = 0.0;
  CHECK_THAT(error_text(p), Catch::Contains("workload.range_ratio"));
  p.lengths.range_ratio = 0.8;
  p.kind = ArrivalKind::kGamma;
  p.burstiness = -1.0;
  CHECK_THAT(error_text(p), Catch::Contains("workload.burstiness"));
  p.kind = ArrivalKind::kClosedLoop;
  p.concurrency = 0;
  CHECK_THAT(error_text(p), Catch::Contains("workload.concurrency"));
  p.kind = ArrivalKind::kTrace;
  CHECK_THAT(error_text(p), Catch::Contains("workload.trace"));
}

TEST_CASE("lengths drawn from a dataset's samples keep each sample's input and output together",
          "[requests]") {
  const auto samples = std::make_shared<const LengthSamples>(parse_length_samples(
      "# c\ninput_tokens,output_tokens\n48,900\n1021,3\n222,219\n", "s.csv", 100000));
  RequestPattern p;
  p.kind = ArrivalKind::kClosedLoop;
  p.concurrency = 8;
  p.lengths = {100, 50, 0.8, samples};  // nominal lengths unused with samples
  const RequestPlan plan = make_request_plan(p, 3);
  std::set<int64_t> seen;
  for (const Request& r : plan.requests) {
    const bool one_of = (r.input_tokens == 48 && r.output_tokens == 900) ||
                        (r.input_tokens == 1021 && r.output_tokens == 3) ||
                        (r.input_tokens == 222 && r.output_tokens == 219);
    CHECK(one_of);
    seen.insert(r.input_tokens);
  }
  CHECK(seen.size() == 3);  // 80 draws of 3 samples reach each
  // Deterministic for a seed.
  const RequestPlan again = make_request_plan(p, 3);
  for (size_t i = 0; i < plan.requests.size(); ++i) {
    CHECK(again.requests[i].input_tokens == plan.requests[i].input_tokens);
  }
}

TEST_CASE("length samples: means, output scaling and located errors", "[requests]") {
  const LengthSamples s =
      parse_length_samples("input_tokens,output_tokens\n100,10\n300,30\n", "s.csv", 1000);
  CHECK(mean_input_tokens(s) == 200.0);
  CHECK(mean_output_tokens(s) == 20.0);
  const LengthSamples scaled = with_mean_output(s, 30.0);  // x 1.5
  CHECK(scaled[0].output_tokens == 15);
  CHECK(scaled[1].output_tokens == 45);
  CHECK(scaled[1].input_tokens == 300);
  CHECK(with_mean_output(s, 0.01)[0].output_tokens == 1);  // never below one token
  const auto error = [](const std::string& text) {
    try {
      parse_length_samples(text, "s.csv", 1000);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error("in,out\n1,2\n").find("s.csv:1:1") != std::string::npos);
  CHECK(error("input_tokens,output_tokens\n1,2\n5,x\n").find("s.csv:3:3") != std::string::npos);
  CHECK(error("input_tokens,output_tokens\n1,2\n0,2\n").find("input_tokens") != std::string::npos);
  CHECK(error("input_tokens,output_tokens\n2000,2\n").find("[1, 1000]") != std::string::npos);
  CHECK(error("input_tokens,output_tokens\n1,2,3\n").find("expected 2 fields") !=
        std::string::npos);
  CHECK(error("# only a comment\n").find("header") != std::string::npos);
  CHECK(error("input_tokens,output_tokens\n").find("at least one sample") != std::string::npos);
}
