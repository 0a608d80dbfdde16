// The shipped measurement rows from InferenceMAX's CI artifacts (ids 1001 and up,
// tools/inferencemax-ci-rows): low-concurrency points whose deployment (TP) is published in the
// chips column, so validate's Little's-law replica can be checked against the one that ran.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/config/data_paths.hpp"
#include "sim/validation/measurement_rows.hpp"

using namespace scoville;

TEST_CASE("the InferenceMAX CI rows plan on the GPUs each point ran on", "[validation]") {
  const config::DataPaths paths{SCOVILLE_SOURCE_DIR};
  const std::vector<validation::MeasurementRow> rows =
      validation::read_measurements(validation::shipped_measurements(paths));
  std::vector<validation::MeasurementRow> ci;
  for (const validation::MeasurementRow& r : rows) {
    if (std::stoll(r.at("id")) >= 1001) ci.push_back(r);
  }
  REQUIRE(ci.size() >= 20);
  const std::vector<validation::RowPlan> plans = validation::plan_rows(ci);
  REQUIRE(plans.size() == ci.size());
  for (const validation::RowPlan& p : plans) {
    INFO("row " << p.id << ": " << p.skipped);
    CHECK(p.skipped.empty());
    CHECK(p.concurrency == 4);
    CHECK(p.scenario == validation::RowScenario::kPoint);
    // Little's law on the published medians lands on the TP the run used.
    CHECK(p.row_chips > 0);
    CHECK(p.replica_chips == p.row_chips);
    CHECK(p.published_intvty.has_value());
  }
}
