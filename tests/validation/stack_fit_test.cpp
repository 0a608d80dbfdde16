// The per-stack fit (sim/validation/stack_fit.hpp): software knobs shared by two systems,
// recovered from rows the serving model generated with them; bounds from the published ranges;
// the stack calibration file.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/config/stack_calibration.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/validation/stack_bounds.hpp"
#include "sim/validation/stack_fit.hpp"

using namespace scoville;
using namespace scoville::validation;

namespace {

// Two rows per system that weigh the knobs differently: one sequence with a short context (the
// fixed per-iteration time is a large share of its step) and 64 with long contexts (KV reads
// and the per-sequence time are).
std::vector<RowPlan> synthetic_rows(const std::string& system, const engine::ServingHardware& hw,
                                    const serving::EfficiencyKnobs& truth, int first_id) {
  std::vector<RowPlan> plans;
  int id = first_id;
  for (const auto& [concurrency, isl] : {std::pair<int64_t, int64_t>{1, 128}, {64, 2048}}) {
    RowPlan p;
    p.id = std::to_string(id++);
    p.system_file = system;
    p.model = "llama-3.1-8b";
    p.metric = "total_tok_s_per_chip";
    p.isl = isl;
    p.osl = 64;
    p.concurrency = concurrency;
    p.replica_chips = 1;
    RowSimulator sim(p, hw, 1);
    const RowPrediction t = sim.run(truth);
    p.published = t.throughput;
    p.published_intvty = t.intvty;
    plans.push_back(p);
  }
  return plans;
}

StackFitRequest request_for(const std::vector<std::string>& knobs) {
  StackFitRequest r;
  r.stack = "synthetic";
  r.rows.rows = "all";
  r.rows.knobs = knobs;
  r.rows.prompts_per_client = 1;
  r.rows.fidelity = engine::ServingFidelity::kRoofline;
  return r;
}

}  // namespace

TEST_CASE("the per-stack fit recovers the software knobs two systems share", "[calibration]") {
  // Two GPUs (the chip model's hardware as it is) running one stack whose software time is known.
  const engine::ServingHardware h200 = engine::resolve_hardware("h200", "", 1, "", false);
  const engine::ServingHardware b200 = engine::resolve_hardware("b200", "", 1, "", false);
  serving::EfficiencyKnobs truth;
  truth.per_iteration = Duration(1e-3);
  truth.per_sequence = Duration(20e-6);
  std::vector<RowPlan> plans = synthetic_rows("sys-a", h200, truth, 1);
  for (const RowPlan& p : synthetic_rows("sys-b", b200, truth, 3)) plans.push_back(p);

  const StackFitRequest request = request_for({"per_iteration_overhead", "per_sequence_overhead"});
  const std::vector<StackSystem> systems = {{"sys-a", &h200, {}}, {"sys-b", &b200, {}}};
  const StackFitResult r = fit_stack(plans, systems, request);
  INFO("fitted MAPE " << r.fitted_after.combined);
  CHECK(r.calibration.per_iteration.si() == Approx(1e-3).epsilon(0.05));
  CHECK(r.calibration.per_sequence.si() == Approx(20e-6).epsilon(0.05));
  REQUIRE(r.systems.size() == 2);
  // One set of software knobs for both systems; their hardware stays the chip model's.
  CHECK(r.systems[0].knobs.per_sequence.si() == r.systems[1].knobs.per_sequence.si());
  CHECK(r.systems[1].knobs.bandwidth[0] == 1.0);
  CHECK(r.fitted_before.combined > 5);  // no software knobs: well off
  CHECK(r.fitted_after.combined < 0.5);
  REQUIRE(r.calibration.fit);
  CHECK(r.calibration.fit->systems == std::vector<std::string>{"sys-a", "sys-b"});
  CHECK(r.calibration.fit->rows == std::vector<std::string>{"1", "2", "3", "4"});
}

TEST_CASE("the per-stack fit fits each system's hardware knobs with the shared ones",
          "[calibration]") {
  // Rows from an HBM fraction per system and one stack's software time: the joint fit lands
  // near the rows (which of the two trades off against the other these four rows do not
  // settle: a fraction and an overhead predict them within a fraction of a percent).
  const engine::ServingHardware h200 = engine::resolve_hardware("h200", "", 1, "", false);
  const engine::ServingHardware b200 = engine::resolve_hardware("b200", "", 1, "", false);
  serving::EfficiencyKnobs a, b;
  a.bandwidth.fill(0.6);
  b.bandwidth.fill(0.8);
  for (serving::EfficiencyKnobs* k : {&a, &b}) k->per_iteration = Duration(1e-3);
  std::vector<RowPlan> plans = synthetic_rows("sys-a", h200, a, 1);
  for (const RowPlan& p : synthetic_rows("sys-b", b200, b, 3)) plans.push_back(p);
  StackFitRequest request = request_for({"per_iteration_overhead"});
  request.system_knobs = {"bandwidth_efficiency.all"};
  const StackFitResult r = fit_stack(plans, {{"sys-a", &h200, {}}, {"sys-b", &b200, {}}}, request);
  CHECK(r.fitted_before.combined > 10);
  CHECK(r.fitted_after.combined < 1);
  REQUIRE(r.systems.size() == 2);
  CHECK(r.systems[0].knobs.bandwidth[0] < r.systems[1].knobs.bandwidth[0]);  // H200's lower
  CHECK(r.systems[0].knobs.per_iteration.si() == r.systems[1].knobs.per_iteration.si());
  // The system's overlay holds its hardware knob, no overhead of its own.
  const config::CalibrationOverlay o = hardware_overlay(r.systems[0], request, "synthetic");
  CHECK(o.knobs.bandwidth[0] == r.systems[0].knobs.bandwidth[0]);
  CHECK(o.knobs.per_iteration.si() == 0.0);
  CHECK(o.knobs.per_sequence.si() == 0.0);
}

TEST_CASE("the per-stack fit keeps each software knob inside its bounds", "[calibration]") {
  const engine::ServingHardware h200 = engine::resolve_hardware("h200", "", 1, "", false);
  serving::EfficiencyKnobs truth;
  truth.per_sequence = Duration(40e-6);  // beyond the published range
  const std::vector<RowPlan> plans = synthetic_rows("sys-a", h200, truth, 1);
  StackFitRequest request = request_for({"per_sequence_overhead"});
  const double hi = 5e-6;
  serving::KnobSpec bound = serving::knob_spec("per_sequence_overhead");
  bound.hi = hi;
  request.rows.fit_options.bounds = {bound};
  const StackFitResult r = fit_stack(plans, {{"sys-a", &h200, {}}}, request);
  CHECK(r.calibration.per_sequence.si() <= hi);
  CHECK(r.calibration.per_sequence.si() == Approx(hi).epsilon(0.02));  // pressed against it
  // Bounds outside the knob's own range are refused.
  bound.hi = 1.0;
  request.rows.fit_options.bounds = {bound};
  CHECK_THROWS_AS(fit_stack(plans, {{"sys-a", &h200, {}}}, request), std::invalid_argument);
}

TEST_CASE("stack knob bounds are the published ranges less the stack file's own time",
          "[calibration]") {
  serving::SoftwareOverheads own;
  own.per_op_launch = Duration(0.5e-6);
  own.per_iteration = Duration(0.1e-3);
  own.per_sequence = Duration(0.25e-6);
  const std::vector<serving::KnobSpec> bounds = stack_knob_bounds(own);
  REQUIRE(bounds.size() == software_ranges().size());
  for (size_t i = 0; i < bounds.size(); ++i) {
    const SoftwareRange& range = software_ranges()[i];
    INFO(range.knob);
    CHECK(bounds[i].name == range.knob);
    CHECK(bounds[i].lo == 0.0);
    const double charged = i == 0 ? 0.5e-6 : i == 1 ? 0.1e-3 : 0.25e-6;
    CHECK(bounds[i].hi == Approx(range.hi - charged));
    CHECK_FALSE(range.source.empty());
  }
  // A stack file already at the ceiling leaves nothing to add.
  own.per_iteration = Duration(1.0);
  CHECK(stack_knob_bounds(own)[1].hi < 1e-8);
}

TEST_CASE("a stack calibration survives a write and read round trip", "[calibration]") {
  config::StackCalibration c;
  c.stack = "tensorrt-llm";
  c.fidelity = "op-table";
  c.per_op = Duration(1.25e-6);
  c.per_iteration = Duration(40e-6);
  c.per_sequence = Duration(2.5e-6);
  config::StackCalibrationFit f;
  f.systems = {"h200-hgx8", "b200-hgx8"};
  f.rows = {"1", "11"};
  f.held_out = {"6"};
  f.knobs = {"per_op_overhead"};
  f.mape_after = 7.5;
  f.held_out_mape_after = 11.25;
  c.fit = f;
  const config::StackCalibration back =
      config::parse_stack_calibration_string(config::stack_calibration_yaml(c), "x");
  CHECK(back.stack == c.stack);
  CHECK(back.fidelity == c.fidelity);
  CHECK(back.per_op.si() == Approx(1.25e-6));
  CHECK(back.per_iteration.si() == Approx(40e-6));
  CHECK(back.per_sequence.si() == Approx(2.5e-6));
  REQUIRE(back.fit);
  CHECK(back.fit->systems == f.systems);
  CHECK(back.fit->held_out_mape_after == Approx(11.25));
  // Bad content is one located error.
  try {
    config::parse_stack_calibration_string(
        "stack_calibration:\n  stack: x\n  knobs:\n    per_sequence_overhead: slow\n", "bad.yaml");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("bad.yaml:4") != std::string::npos);
    CHECK(std::string(e.what()).find("per_sequence_overhead") != std::string::npos);
  }
}
