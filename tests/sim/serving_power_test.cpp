// Power in the serving layer (sim/serving/serving_power): a cap throttles iterations and the
// slowdown reaches TPOT; a cap above peak changes nothing; idle energy, energy conservation and
// MTP's energy per accepted token. Expected values come from the analytic cost model's
// parameters and the DVFS points.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/power/power_accounting.hpp"
#include "sim/serving/analytic_cost_model.hpp"
#include "sim/serving/serving_power.hpp"
#include "sim/serving/serving_run.hpp"

using namespace scoville;
using namespace scoville::serving;
using scoville::workloads::ArrivalKind;

namespace {

constexpr int64_t kChips = 8;
constexpr double kStaticPerChip = 100.0;  // W: the analytic pool_power / chips

// Token work is clock-bound and dear: an iteration of many tokens draws well over 200 W a chip.
AnalyticCostParams cost_params() {
  AnalyticCostParams p;
  p.fixed = milliseconds(5.0);
  p.prefill_token_time = microseconds(200.0);
  p.decode_sequence_time = microseconds(100.0);
  p.decode_token_time = microseconds(200.0);
  p.kv_token_time = nanoseconds(10.0);
  p.pool_power = watts(kStaticPerChip * kChips);
  p.energy_per_token = joules(0.4);
  return p;
}

models::PowerManagementParams management(double cap_w) {
  models::PowerManagementParams pm;
  pm.present = true;
  pm.points = {{gigahertz(1.0), Voltage(0.7)}, {gigahertz(2.0), Voltage(0.9)}};
  pm.frequency_step = Frequency(10e6);
  pm.time_constant = milliseconds(10.0);
  pm.cap = watts(cap_w);
  return pm;
}

ServingScenario scenario(std::optional<double> cap_w) {
  ServingScenario s;
  s.workload.kind = ArrivalKind::kClosedLoop;
  s.workload.concurrency = 64;
  s.workload.num_prompts = 640;
  s.workload.lengths = {64, 256, 0.8};
  PoolConfig p;
  p.name = "colocated";
  p.role = PoolRole::kColocated;
  p.chips = kChips;
  p.idle_power_per_chip = watts(kStaticPerChip);
  if (cap_w) {
    p.power.managed = true;
    p.power.management = management(*cap_w);
    p.power.static_per_chip = watts(kStaticPerChip);
    p.idle_power_per_chip = models::idle_power(watts(kStaticPerChip), p.power.management);
  }
  s.system.pools.push_back(p);
  return s;
}

double busy_power_per_chip(const ServingResult& r) {
  const PoolStats& p = r.trace.stats.pools[0];
  return p.iteration_energy.si() / p.busy_time.si() / kChips;
}

}  // namespace

TEST_CASE("at_clock stretches clock-bound time and scales energy by V and V^2",
          "[serving][power]") {
  const AnalyticCostModel model(cost_params());
  IterationBatch batch;
  batch.chips = kChips;
  for (int i = 0; i < 10; ++i) batch.sequences.push_back({SequencePhase::kDecode, 1, 100, 101});
  const IterationCost nominal = model.cost(batch);
  const models::PowerManagementParams pm = management(200);
  const models::DvfsCurve curve(pm.points);
  const IterationCost half = at_clock(nominal, curve, gigahertz(1.0));
  const double clock_bound = 10 * 200e-6;  // the decode token terms
  CHECK(half.time.si() == Approx(nominal.time.si() + clock_bound));
  const double v = 0.7 / 0.9;
  const double static_j = kStaticPerChip * kChips * half.time.si() * v;
  const double dynamic_j = 0.4 * 10 * v * v;
  CHECK(half.energy.si() == Approx(static_j + dynamic_j));
  CHECK(half.power->energy.static_energy.si() == Approx(static_j));
}

TEST_CASE("a serving cap below peak holds busy power within 2% of it and raises TPOT",
          "[serving][power]") {
  const AnalyticCostModel model(cost_params());
  const ServingResult free_run = run_serving(scenario(std::nullopt), model, 3);
  const double peak = free_run.metrics.peak_power_per_chip_w;
  const double uncapped = busy_power_per_chip(free_run);
  const double cap = 0.8 * uncapped;
  REQUIRE(cap < peak);
  const ServingResult capped = run_serving(scenario(cap), model, 3);
  const double busy = busy_power_per_chip(capped);
  INFO("uncapped " << uncapped << " W, cap " << cap << " W, capped " << busy << " W");
  CHECK(std::fabs(busy - cap) / cap < 0.02);
  CHECK(capped.metrics.throttled_share > 0.5);
  CHECK(*capped.metrics.effective_clock_hz < 2e9);
  CHECK(capped.metrics.tpot_ms.median > free_run.metrics.tpot_ms.median * 1.05);
  CHECK(capped.metrics.ttft_ms.mean > free_run.metrics.ttft_ms.mean);
  CHECK(*capped.metrics.power_cap_w == cap);
}

TEST_CASE("a serving cap above peak power leaves the run bit-identical", "[serving][power]") {
  const AnalyticCostModel model(cost_params());
  ServingScenario plain = scenario(std::nullopt);
  const ServingResult a = run_serving(plain, model, 4);
  ServingScenario high = scenario(1e6);
  high.system.pools[0].idle_power_per_chip = plain.system.pools[0].idle_power_per_chip;
  const ServingResult b = run_serving(high, model, 4);
  REQUIRE(a.trace.records.size() == b.trace.records.size());
  for (size_t i = 0; i < a.trace.records.size(); ++i) {
    CHECK(a.trace.records[i].first_token.si() == b.trace.records[i].first_token.si());
    CHECK(a.trace.records[i].finished.si() == b.trace.records[i].finished.si());
  }
  CHECK(a.metrics.total_energy_j == b.metrics.total_energy_j);
  CHECK(b.metrics.throttled_share == 0.0);
  CHECK(*b.metrics.effective_clock_hz == Approx(2e9));
}

TEST_CASE("idle energy is idle power x idle time, and energies add up", "[serving][power]") {
  const AnalyticCostModel model(cost_params());
  ServingScenario s = scenario(1e6);
  s.workload.kind = ArrivalKind::kPoisson;  // low load: long gaps between requests
  s.workload.rate = 1.0;
  s.workload.num_prompts = 20;
  s.workload.lengths = {64, 16, 0.8};
  const ServingResult r = run_serving(s, model, 5);
  const PoolStats& p = r.trace.stats.pools[0];
  // Static power at the lowest point: 100 W x 0.7 / 0.9 (leakage linear in V).
  const double idle_w = kStaticPerChip * 0.7 / 0.9;
  const double idle_s = r.trace.stats.window().si() - p.busy_time.si();
  CHECK(p.idle_time.si() == idle_s);
  CHECK(p.idle_energy.si() == Approx(idle_w * kChips * idle_s).epsilon(1e-12));
  CHECK(r.metrics.idle_share > 0.5);
  // Conservation: components of the busy phases + idle = total = average power x time.
  double parts = p.idle_energy.si();
  for (const PhasePower& ph : p.power.phases) parts += ph.energy.total();
  CHECK(parts == Approx(r.metrics.total_energy_j).epsilon(1e-9));
  CHECK(r.metrics.avg_power_per_chip_w * r.metrics.duration_s * kChips ==
        Approx(r.metrics.total_energy_j).epsilon(1e-12));
  CHECK(r.metrics.busy_energy_j + r.metrics.idle_energy_j ==
        Approx(r.metrics.total_energy_j).epsilon(1e-12));
}

TEST_CASE("energy conservation holds under a binding cap", "[serving][power]") {
  const AnalyticCostModel model(cost_params());
  const ServingResult r = run_serving(scenario(180.0), model, 6);
  REQUIRE(r.metrics.throttled_share > 0.0);
  const PoolStats& p = r.trace.stats.pools[0];
  double parts = p.idle_energy.si();
  double busy = 0;
  for (const PhasePower& ph : p.power.phases) {
    parts += ph.energy.total();
    busy += ph.time.si();
  }
  CHECK(busy == Approx(p.busy_time.si()).epsilon(1e-12));
  CHECK(parts == Approx(r.metrics.total_energy_j).epsilon(1e-9));
}

TEST_CASE("MTP: energy per accepted token, and rejected drafts cost energy", "[serving][power]") {
  const AnalyticCostModel model(cost_params());
  ServingScenario s = scenario(std::nullopt);
  s.system.pools[0].scheduler.mtp.depth = 3;
  s.system.pools[0].scheduler.mtp.acceptance = 0.6;
  s.system.pools[0].scheduler.mtp.mode = MtpConfig::Mode::kSampled;
  const ServingResult r = run_serving(s, model, 7);
  const PoolStats& p = r.trace.stats.pools[0];
  REQUIRE(p.preemptions == 0);
  CHECK(r.metrics.joules_per_accepted_token ==
        Approx(r.metrics.total_energy_j / static_cast<double>(r.metrics.total_output_tokens)));
  CHECK(r.metrics.rejected_draft_energy_j > 0.0);
  CHECK(r.metrics.rejected_draft_energy_j < r.metrics.busy_energy_j);
  // Every decode position either yields an output token or is rejected; each request's first
  // token comes from its prefill.
  const int64_t decode_tokens = r.metrics.total_output_tokens - r.metrics.completed;
  CHECK(p.rejected_positions == p.decode_positions - decode_tokens);
  CHECK(r.metrics.rejected_draft_positions == p.rejected_positions);

  ServingScenario plain = scenario(std::nullopt);
  const ServingResult q = run_serving(plain, model, 7);
  CHECK(q.metrics.rejected_draft_energy_j == 0.0);
  CHECK(q.metrics.rejected_draft_positions == 0);
}

namespace {

const PhasePower* phase_named(const ServingResult& r, const std::string& name) {
  for (const PhasePower& p : r.trace.stats.pools[0].power.phases) {
    if (p.phase == name) return &p;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a serving cap holds each kind of iteration to its own average", "[serving][power]") {
  // Mixed iterations (prefill chunks beside decode) draw more than decode-only ones; a cap
  // between the two must hold the mixed iterations' own average within 2% below it, without
  // the credit the decode iterations earn under it, and leave decode as it was uncapped (one
  // controller state for the whole pool ran the mixed iterations 3.0% over the cap here).
  const AnalyticCostModel model(cost_params());
  ServingScenario s = scenario(1e6);
  s.workload.lengths = {128, 128, 0.8};  // mixed iterations between decode-only ones
  const ServingResult free_run = run_serving(s, model, 8);
  const PhasePower* mixed_u = phase_named(free_run, "mixed");
  const PhasePower* decode_u = phase_named(free_run, "decode");
  REQUIRE(mixed_u != nullptr);
  REQUIRE(decode_u != nullptr);
  const double p_mixed = mixed_u->average_power_per_chip(kChips);
  const double p_decode = decode_u->average_power_per_chip(kChips);
  INFO("uncapped: mixed " << p_mixed << " W, decode " << p_decode << " W");
  REQUIRE(p_mixed > 1.1 * p_decode);
  const double cap = p_decode + 0.5 * (p_mixed - p_decode);
  s.system.pools[0].power.management.cap = watts(cap);
  // As the shipped chips: a regulating controller keeps regulating (and keeps the credit light
  // iterations earn) until its average is 20% under the cap, so decode iterations earn credit.
  s.system.pools[0].power.management.hysteresis = 0.2;
  const ServingResult capped = run_serving(s, model, 8);
  const PhasePower* mixed_c = phase_named(capped, "mixed");
  const PhasePower* decode_c = phase_named(capped, "decode");
  REQUIRE(mixed_c != nullptr);
  REQUIRE(decode_c != nullptr);
  const double held = mixed_c->average_power_per_chip(kChips) / cap - 1;
  INFO("cap " << cap << " W: mixed " << mixed_c->average_power_per_chip(kChips) << " W");
  CHECK(held <= 0.005);
  CHECK(held >= -0.02);
  // Decode iterations stay under the cap: unthrottled, their time per iteration as uncapped.
  CHECK(decode_c->throttled_time.si() == 0.0);
  const double per_iteration_u = decode_u->time.si() / static_cast<double>(decode_u->iterations);
  const double per_iteration_c = decode_c->time.si() / static_cast<double>(decode_c->iterations);
  CHECK(std::fabs(per_iteration_c / per_iteration_u - 1) < 0.01);
}
