// The shipped measurement rows from InferenceMAX's CI artifacts (ids 1001 and up,
// tools/inferencemax-ci-rows): low-concurrency points whose deployment is published (the TP of a
// co-located run in the chips column; a disaggregated run's workers in its notes), so validate's
// plan can be checked against the one that ran.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/validation/measurement_rows.hpp"
#include "workloads/mapping/pool_mapping.hpp"

using namespace scoville;

namespace {

std::vector<validation::RowPlan> ci_rows() {
  const config::DataPaths paths{SCOVILLE_SOURCE_DIR};
  std::vector<validation::MeasurementRow> ci;
  for (const validation::MeasurementRow& r :
       validation::read_measurements(validation::shipped_measurements(paths))) {
    if (std::stoll(r.at("id")) >= 1001) ci.push_back(r);
  }
  return validation::plan_rows(ci);
}

}  // namespace

TEST_CASE("the InferenceMAX CI rows plan on the GPUs each point ran on", "[validation]") {
  const std::vector<validation::RowPlan> plans = ci_rows();
  REQUIRE(plans.size() >= 30);
  int colocated = 0, split = 0;
  for (const validation::RowPlan& p : plans) {
    INFO("row " << p.id << ": " << p.skipped);
    CHECK(p.skipped.empty());
    CHECK(p.scenario == validation::RowScenario::kPoint);
    CHECK(p.published_intvty.has_value());
    CHECK(p.row_chips > 0);
    // Little's law on the published medians lands on the TP the run used; a split row is its
    // two workers.
    CHECK(p.replica_chips == p.row_chips);
    if (p.decode_chips == 0) {
      ++colocated;
      CHECK(p.concurrency == 4);
    } else {
      ++split;
      CHECK(p.decode_tensor_parallel);
      CHECK(p.prefill_chips + p.decode_chips == p.row_chips);
      CHECK(p.concurrency <= 8);
    }
  }
  CHECK(colocated >= 20);
  CHECK(split >= 5);
}

TEST_CASE("the DeepSeek R1 CI rows hold one stack at concurrency 4 on five GPUs", "[validation]") {
  std::set<std::string> systems;
  for (const validation::RowPlan& p : ci_rows()) {
    if (p.model != "deepseek-r1") continue;
    INFO("row " << p.id);
    CHECK(p.decode_chips == 0);
    CHECK(p.concurrency == 4);
    CHECK(p.replica_chips == p.row_chips);
    systems.insert(p.system_file);
  }
  // SGLang on B200, H200, MI300X, MI325X and MI355X (and ATOM on MI355X).
  CHECK(systems ==
        std::set<std::string>{"b200-hgx8", "h200-hgx8", "mi300x-8", "mi325x-8", "mi355x-8"});
}

TEST_CASE("a tensor-parallel decode worker maps to one attention group over its chips",
          "[validation]") {
  const config::DataPaths paths{SCOVILLE_SOURCE_DIR};
  for (const validation::RowPlan& p : ci_rows()) {
    if (p.decode_chips == 0) continue;
    INFO("row " << p.id);
    // "prefill 1 GPU TP1, decode 8 GPU TP8 EP1": the decode pool is TP8 with the experts
    // tensor-parallel (EP1) and attention over all eight chips, not 8 EP1 instances.
    const workloads::MappingConfig m =
        validation::row_mapping(p, validation::row_model(p, paths), SourceLocation{"t", 1, 1});
    REQUIRE(m.pools.size() == 2);
    const workloads::PoolMapping& decode = m.pools[1];
    CHECK(decode.degrees.tp == p.decode_chips);
    CHECK(decode.degrees.ep == p.decode_ep);
    CHECK(decode.degrees.attn_dp == 1);
    CHECK(m.pools[0].degrees.tp == p.prefill_chips);
  }
}
