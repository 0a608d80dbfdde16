// Serving metrics on hand-built records: every expected value is derived here from the records.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/serving/analytic_cost_model.hpp"
#include "sim/serving/percentile.hpp"
#include "sim/serving/serving_metrics.hpp"

using namespace scoville;
using namespace scoville::serving;

namespace {

RequestRecord record(double sent, double first, double finished, int64_t input, int64_t output) {
  RequestRecord r;
  r.sent = seconds(sent);
  r.first_token = seconds(first);
  r.finished = seconds(finished);
  r.input_tokens = input;
  r.output_tokens = output;
  return r;
}

double value(const ServingMetrics& m, const std::string& name) {
  for (const NamedMetric& metric : m.named()) {
    if (metric.name == name) return metric.value;
  }
  FAIL("metric " << name << " not reported");
  return 0.0;
}

bool has(const ServingMetrics& m, const std::string& name) {
  for (const NamedMetric& metric : m.named()) {
    if (metric.name == name) return true;
  }
  return false;
}

// The percentile as np.percentile defines it, on a fully sorted copy: the exact path the
// selection in percentile.cpp must reproduce bit for bit.
double sorted_percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double h = q / 100.0 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

}  // namespace

TEST_CASE("percentiles by selection equal those of a full sort, bit for bit", "[metrics]") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> uniform(0.0, 100.0);
  std::uniform_int_distribution<int> coarse(0, 9);  // many ties
  for (size_t n :
       {size_t{1}, size_t{2}, size_t{3}, size_t{10}, size_t{101}, size_t{1000}, size_t{4097}}) {
    for (bool ties : {false, true}) {
      std::vector<double> v(n);
      for (double& x : v) x = ties ? static_cast<double>(coarse(rng)) : uniform(rng);
      const Distribution d = summarize(v);
      CHECK(d.median == sorted_percentile(v, 50.0));
      CHECK(d.p90 == sorted_percentile(v, 90.0));
      CHECK(d.p95 == sorted_percentile(v, 95.0));
      CHECK(d.p99 == sorted_percentile(v, 99.0));
      for (double q : {0.0, 1.0, 33.3, 50.0, 99.9, 100.0}) {
        CHECK(percentile(v, q) == sorted_percentile(v, q));
      }
    }
  }
}

TEST_CASE("percentile is numpy's linear interpolation", "[metrics]") {
  const std::vector<double> v = {4.0, 1.0, 3.0, 2.0};  // sorted: 1 2 3 4
  // h = q/100 x (n - 1); result v[floor h] + frac(h) x (v[floor h + 1] - v[floor h]).
  CHECK(percentile(v, 90.0) == Approx(3.0 + 0.7 * (4.0 - 3.0)));
  CHECK(percentile(v, 50.0) == Approx(2.0 + 0.5 * (3.0 - 2.0)));
  CHECK(percentile(v, 0.0) == 1.0);
  CHECK(percentile(v, 100.0) == 4.0);
  CHECK(percentile({7.0}, 99.0) == 7.0);
  const Distribution d = summarize(v);
  const double mean = (1.0 + 2.0 + 3.0 + 4.0) / 4.0;
  const double var = ((1 - mean) * (1 - mean) + (2 - mean) * (2 - mean) + (3 - mean) * (3 - mean) +
                      (4 - mean) * (4 - mean)) /
                     4.0;  // population variance (np.std, ddof = 0)
  CHECK(d.mean == Approx(mean));
  CHECK(d.std == Approx(std::sqrt(var)));
  CHECK(d.p99 == Approx(3.0 + 0.97 * (4.0 - 3.0)));
  CHECK(summarize({}).count == 0);
}

TEST_CASE("request metrics: TTFT, TPOT, ITL, E2EL", "[metrics]") {
  RequestRecord r = record(1.0, 1.25, 2.0, 10, 4);
  r.itl = {seconds(0.25), seconds(0.25), seconds(0.25)};
  CHECK(r.ttft().si() == Approx(1.25 - 1.0));
  CHECK(r.e2el().si() == Approx(2.0 - 1.0));
  CHECK(r.tpot()->si() == Approx((r.e2el() - r.ttft()).si() / (4 - 1)));
  CHECK_FALSE(record(0, 1, 1, 10, 1).tpot().has_value());  // undefined for one token
}

TEST_CASE("aggregated metrics over hand-built records", "[metrics]") {
  // Three requests; the window runs from the first send (0) to the last finish (1.2 s).
  std::vector<RequestRecord> records = {
      record(0.0, 0.1, 0.5, 100, 5),   // TTFT 100 ms, TPOT 400/4 = 100 ms
      record(0.2, 0.5, 1.2, 200, 15),  // TTFT 300 ms, TPOT 700/14 = 50 ms
      record(0.3, 0.4, 0.4, 50, 1),    // TTFT 100 ms, no TPOT
  };
  records[0].itl = {seconds(0.1), seconds(0.1), seconds(0.1), seconds(0.1)};
  records[1].itl = {seconds(0.35), seconds(0.35)};
  SchedulerStats stats;
  stats.window_start = seconds(0.0);
  stats.window_end = seconds(1.2);
  PoolStats prefill, decode;
  prefill.iteration_energy = joules(40.0);
  decode.iteration_energy = joules(60.0);
  decode.idle_energy = joules(20.0);
  decode.preemptions = 2;
  decode.wasted_tokens = 300;
  stats.pools = {prefill, decode};
  ServingSystem system;
  PoolConfig p, d;
  p.role = PoolRole::kPrefill;
  p.chips = 2;
  d.role = PoolRole::kDecode;
  d.chips = 6;
  system.pools = {p, d};
  MetricInputs in;
  in.slo_ttft = milliseconds(200.0);  // request 1 misses it
  in.slo_tpot = milliseconds(80.0);   // request 0 misses it; request 2 has no TPOT
  in.tdp_per_chip = watts(700.0);
  in.all_in_power_per_chip = watts(2100.0);
  in.pue = 1.2;
  in.price_per_chip_hour = 2.21;

  const ServingMetrics m = compute_metrics(records, stats, system, in);
  const double window = 1.2;
  const double out_tokens = 5 + 15 + 1, in_tokens = 100 + 200 + 50;
  CHECK(m.completed == 3);
  CHECK(m.duration_s == Approx(window));
  CHECK(m.request_throughput == Approx(3 / window));
  CHECK(m.output_throughput == Approx(out_tokens / window));
  CHECK(m.input_throughput == Approx(in_tokens / window));
  CHECK(m.total_token_throughput == Approx((in_tokens + out_tokens) / window));

  CHECK(m.ttft_ms.mean == Approx((100.0 + 300.0 + 100.0) / 3));
  CHECK(m.ttft_ms.median == Approx(100.0));
  CHECK(m.ttft_ms.p90 == Approx(100.0 + 0.8 * (300.0 - 100.0)));  // h = 0.9 x 2 = 1.8
  CHECK(m.tpot_ms.count == 2);
  CHECK(m.tpot_ms.median == Approx((100.0 + 50.0) / 2));
  CHECK(m.itl_ms.count == 6);
  CHECK(m.itl_ms.mean == Approx((4 * 100.0 + 2 * 350.0) / 6));
  CHECK(m.e2el_ms.median == Approx(500.0));  // e2els 500, 1000, 100 ms

  CHECK(*m.request_goodput == Approx(1 / window));
  CHECK(*m.output_goodput == Approx(1 / window));

  const double tput_per_chip = (in_tokens + out_tokens) / window / 8;
  CHECK(m.tput_per_chip == Approx(tput_per_chip));
  CHECK(m.output_tput_per_chip == Approx(out_tokens / window / 6));
  CHECK(m.input_tput_per_chip == Approx(in_tokens / window / 2));
  CHECK(m.intvty == Approx(1000.0 / 75.0));
  // Per-request output tokens / E2EL: 5/0.5, 15/1.0, 1/0.1 -> median 10.
  CHECK(m.median_e2e_intvty == Approx(10.0));

  const double energy = 40.0 + 60.0 + 20.0;
  const double avg_power_per_chip = energy / window / 8;
  CHECK(m.total_energy_j == Approx(energy));
  CHECK(m.avg_power_per_chip_w == Approx(avg_power_per_chip));
  CHECK(m.joules_per_output_token == Approx(energy / out_tokens));
  CHECK(*m.tput_per_kw_tdp == Approx(tput_per_chip * 1000.0 / 700.0));
  CHECK(m.tput_per_kw_sim == Approx(tput_per_chip * 1000.0 / avg_power_per_chip));
  CHECK(*m.tput_per_mw_all_in == Approx(tput_per_chip * 1000.0 / (2.1 * 1.2)));
  CHECK(*m.joules_per_token_all_in == Approx(2100.0 * 1.2 / tput_per_chip));
  CHECK(*m.cost_per_mtok == Approx(2.21 / (3600.0 * tput_per_chip / 1e6)));
  CHECK(m.preemptions == 2);
  CHECK(m.wasted_tokens == 300);

  // vLLM / InferenceX names.
  CHECK(value(m, "median_ttft_ms") == m.ttft_ms.median);
  CHECK(value(m, "p99_itl_ms") == m.itl_ms.p99);
  CHECK(value(m, "p95_e2el_ms") == m.e2el_ms.p95);
  CHECK(value(m, "std_tpot_ms") == m.tpot_ms.std);
  CHECK(value(m, "tput_per_chip") == m.tput_per_chip);
  CHECK(value(m, "intvty") == m.intvty);
  CHECK(value(m, "request_goodput") == *m.request_goodput);

  // Optional inputs absent: their metrics are absent, not zero.
  const ServingMetrics bare = compute_metrics(records, stats, system, MetricInputs{});
  CHECK_FALSE(has(bare, "request_goodput"));
  CHECK_FALSE(has(bare, "tput_per_kw_tdp"));
  CHECK_FALSE(has(bare, "cost_per_mtok"));
  CHECK(has(bare, "tput_per_kw_sim"));

  // Every metric declares its unit where it is made (no writer guesses it from the name).
  const auto unit = [&](const std::string& name) {
    for (const NamedMetric& metric : m.named()) {
      if (metric.name == name) return metric.unit;
    }
    return std::string("(absent)");
  };
  for (const NamedMetric& metric : m.named()) CHECK_FALSE(metric.unit.empty());
  CHECK(unit("total_output_tokens") == "1");
  CHECK(unit("output_throughput") == "1/s");
  CHECK(unit("median_ttft_ms") == "ms");
  CHECK(unit("duration") == "s");
  CHECK(unit("total_energy_j") == "J");
  CHECK(unit("tput_per_kw_tdp") == "1/(s*kW)");
  CHECK(unit("idle_share") == "1");
}

TEST_CASE("co-located chips count as both prefill and decode chips", "[metrics]") {
  ServingSystem system;
  PoolConfig c;
  c.chips = 4;
  system.pools = {c};
  CHECK(system.total_chips() == 4);
  CHECK(system.prefill_chips() == 4);
  CHECK(system.decode_chips() == 4);
  CHECK_FALSE(system.disaggregated());
}

TEST_CASE("analytic cost model adds one term per kind of work", "[metrics]") {
  AnalyticCostParams p;
  p.fixed = milliseconds(1.0);
  p.prefill_token_time = microseconds(2.0);
  p.decode_sequence_time = microseconds(30.0);
  p.decode_token_time = microseconds(4.0);
  p.kv_token_time = nanoseconds(5.0);
  p.pool_power = watts(500.0);
  p.energy_per_token = joules(0.1);
  const AnalyticCostModel model(p);
  IterationBatch b;
  b.sequences = {{SequencePhase::kPrefill, 300, 200, 500},
                 {SequencePhase::kDecode, 3, 1000, 1003},
                 {SequencePhase::kDecode, 3, 50, 53}};
  const IterationCost c = model.cost(b);
  const double time = p.fixed.si() + 300 * p.prefill_token_time.si() +
                      2 * p.decode_sequence_time.si() + 6 * p.decode_token_time.si() +
                      (500 + 1003 + 53) * p.kv_token_time.si();
  CHECK(c.time.si() == Approx(time));
  CHECK(c.energy.si() == Approx(p.pool_power.si() * time + p.energy_per_token.si() * (300 + 6)));
  CHECK(c.breakdown.size() == 5);

  p.fixed = Duration();
  p.kv_token_time = nanoseconds(-1.0);
  try {
    AnalyticCostModel bad(p);
    FAIL("bad parameters accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(),
               Catch::Contains("cost_model.fixed") && Catch::Contains("cost_model.kv_token_time"));
  }
}
