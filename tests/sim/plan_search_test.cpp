// engine::plan_search and rank_plan (sim/engine/plan_search.hpp): the ranking within each load,
// the Pareto marking, and the search itself on a small case at the roofline fidelity.
#include <catch2/catch.hpp>

#include "sim/config/data_paths.hpp"
#include "sim/engine/inferencex_sweep.hpp"
#include "sim/engine/plan_search.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;

namespace {

engine::PlanPoint point(size_t load, double goodput_per_chip, double tpot_ms, double intvty,
                        bool meets) {
  engine::PlanPoint p;
  p.load = load;
  p.goodput_per_chip = goodput_per_chip;
  p.tpot_ms = tpot_ms;
  p.point.result.metrics.intvty = intvty;
  p.meets = meets;
  return p;
}

engine::PlanQuery small_query(const workloads::ModelConfig& model, double ttft_s, double tpot_s) {
  engine::PlanQuery q;
  q.mappings = engine::sweep_mappings(engine::MappingChoice{"", true}, model, 2);
  for (int64_t n : {2, 8}) {
    engine::PlanLoad load{"N=" + std::to_string(n), {}};
    load.requests.kind = workloads::ArrivalKind::kClosedLoop;
    load.requests.concurrency = n;
    load.requests.num_prompts = 2 * n;
    load.requests.lengths = {256, 16, 0.8};
    q.loads.push_back(load);
  }
  q.max_batch = {4, 64};
  q.ttft = {Duration(ttft_s), 99};
  q.tpot = {Duration(tpot_s), 99};
  return q;
}

}  // namespace

TEST_CASE("plan: points are ranked per load by goodput per chip and ties by TPOT", "[plan]") {
  std::vector<engine::PlanPoint> points = {
      point(0, 100, 20, 50, true), point(0, 300, 30, 33, true), point(0, 500, 10, 100, false),
      point(1, 200, 25, 40, true), point(0, 300, 25, 40, true), point(1, 50, 5, 200, true)};
  engine::rank_plan(points);
  CHECK(points[1].rank == 2);  // 300 at TPOT 30 after 300 at TPOT 25
  CHECK(points[4].rank == 1);
  CHECK(points[0].rank == 3);
  CHECK(points[2].rank == 0);  // misses the limits: unranked, off the frontier
  CHECK_FALSE(points[2].pareto);
  CHECK(points[3].rank == 1);  // load 1 ranks on its own
  CHECK(points[5].rank == 2);
  // Frontier over (intvty, goodput per chip) of the points that meet: (40, 300) beats (33, 300)
  // and (50, 100) is beaten by nothing with more interactivity; (200, 50) has the most.
  CHECK(points[4].pareto);
  CHECK_FALSE(points[1].pareto);
  CHECK(points[5].pareto);
  CHECK(points[0].pareto);
}

TEST_CASE("plan: the search on two chips ranks the points that meet loose limits", "[plan]") {
  const config::DataPaths paths{SCOVILLE_SOURCE_DIR};
  const workloads::ModelConfig model =
      workloads::load_model(paths.resolve("llama-3.1-8b", "workloads/models"));
  const engine::ServingHardware hw = engine::resolve_hardware("h200", "", 2, "", false);
  const engine::PlanQuery q = small_query(model, 10.0, 1.0);
  int64_t steps = 0;
  const engine::PlanResult r =
      engine::plan_search(hw, model, q, [&](const std::string&) { ++steps; });
  CHECK(steps == engine::plan_point_count(q));
  // tp1, tp2, tp2-dpa2 and the disaggregated tp1 + tp1 split (with and without nothing to
  // attention-DP over); a closed loop of 2 clients folds the limit 64 into 2.
  CHECK(q.mappings.size() >= 3);
  CHECK(static_cast<int64_t>(r.points.size()) == engine::plan_point_count(q));
  int64_t ranked = 0;
  for (const engine::PlanPoint& p : r.points) {
    INFO(p.point.mapping << " max_batch " << p.max_batch << " load " << p.load);
    CHECK(p.max_batch <= q.loads[p.load].requests.concurrency);
    CHECK(p.meets);  // 10 s and 1 s are far above what an 8B model takes here
    CHECK(p.goodput > 0);
    CHECK(p.goodput_per_chip == Approx(p.goodput / static_cast<double>(p.point.chips)));
    CHECK(p.goodput_per_kw == Approx(p.goodput_per_chip * 1000.0 / hw.chip.power.tdp.si()));
    // Every request meets limits this loose: goodput is the output throughput.
    CHECK(p.goodput == Approx(p.point.result.metrics.output_throughput));
    if (p.rank == 1) ++ranked;
  }
  CHECK(ranked == 2);  // one best per load

  SECTION("limits nothing meets leave every point unranked") {
    const engine::PlanQuery tight = small_query(model, 1e-6, 1e-6);
    const engine::PlanResult none =
        engine::plan_search(hw, model, tight, [](const std::string&) {});
    for (const engine::PlanPoint& p : none.points) {
      CHECK_FALSE(p.meets);
      CHECK(p.rank == 0);
      CHECK(p.goodput == 0);
    }
  }
  SECTION("the same query gives the same points") {
    const engine::PlanResult again = engine::plan_search(hw, model, q, [](const std::string&) {});
    REQUIRE(again.points.size() == r.points.size());
    for (size_t i = 0; i < r.points.size(); ++i) {
      CHECK(again.points[i].goodput == r.points[i].goodput);
      CHECK(again.points[i].rank == r.points[i].rank);
    }
  }
}
