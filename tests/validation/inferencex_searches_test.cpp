// InferenceX's searches for its best-throughput rows (workloads/measurements/
// inferencex-searches.csv): the file's reader and its located errors, a row planned on its
// search, the replicas and concurrencies a sweep then tries, and the shipped lines.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/validation/concurrency_sweep.hpp"
#include "sim/validation/inferencex_searches.hpp"
#include "sim/validation/measurement_rows.hpp"

using namespace scoville;

namespace {

const char* const kHeader = "# comment\nid,model,replica_chips,max_concurrency,source\n";

std::string parse_error(const std::string& body) {
  try {
    validation::parse_inferencex_searches(kHeader + body, "s.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Plans the measurement rows in `body` with these searches.
std::vector<validation::RowPlan> plan(const std::string& body,
                                      const std::vector<validation::InferencexSearch>& searches) {
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("scoville_inferencex_searches_" + std::to_string(::getpid()) + ".csv"))
                               .string();
  {
    std::ofstream out(file);
    out << "id,system,chips,model,precision,framework,isl,osl,concurrency,throughput_metric,"
           "throughput,interactivity_tok_s_user,ttft_ms,tpot_ms,notes\n"
        << body;
  }
  std::vector<validation::RowPlan> plans;
  try {
    plans = validation::plan_rows(validation::read_measurements(file), {}, {}, {}, searches);
  } catch (...) {
    std::filesystem::remove(file);
    throw;
  }
  std::filesystem::remove(file);
  return plans;
}

const char* const kPeakRow =
    "7,AMD MI355X (8-GPU),,gpt-oss-120b,FP4(MXFP4),vLLM,8192,1024,,total_tok_s_per_chip,38532.2,,,,"
    "\"best-throughput config per GPU\"\n";
const char* const kPointRow =
    "8,AMD MI355X (8-GPU),,gpt-oss-120b,FP4(MXFP4),vLLM,8192,1024,64,total_tok_s_per_chip,10000,,,,"
    "\"one point\"\n";

}  // namespace

TEST_CASE("the InferenceX searches file reads each entry and locates a bad value") {
  const auto searches = validation::parse_inferencex_searches(
      std::string(kHeader) + "9,gpt-oss-120b,1,128,\"a, b\"\n9,gpt-oss-120b,8,8,c\n", "s.csv");
  REQUIRE(searches.size() == 2);
  CHECK(searches[0].row_id == "9");
  CHECK(searches[0].space.replica_chips == 1);
  CHECK(searches[0].space.max_concurrency == 128);
  CHECK(searches[1].where.line == 4);
  CHECK(validation::searches_for(searches, "9", "gpt-oss-120b").size() == 2);
  CHECK(validation::searches_for(searches, "9", "Kimi-K2.5").empty());  // another row's model
  CHECK(validation::searches_for(searches, "10", "gpt-oss-120b").empty());

  CHECK(parse_error(",gpt-oss-120b,1,128,x\n").find("s.csv:3") != std::string::npos);
  CHECK(parse_error("9,,1,128,x\n").find("model") != std::string::npos);
  // One line per replica size of a row.
  const std::string twice = parse_error("9,m,1,128,x\n9,m,1,64,y\n");
  CHECK(twice.find("s.csv:4") != std::string::npos);
  CHECK(twice.find("second line") != std::string::npos);
  for (const char* bad : {"0", "1.5", "abc", "4096", ""}) {
    INFO(bad);
    const std::string e = parse_error(std::string("9,m,") + bad + ",64,x\n");
    CHECK(e.find("s.csv:3") != std::string::npos);
    CHECK(e.find("replica_chips") != std::string::npos);
  }
  for (const char* bad : {"0", "-4", "12.5", "many", ""}) {
    INFO(bad);
    const std::string e = parse_error(std::string("9,m,8,") + bad + ",x\n");
    CHECK(e.find("max_concurrency") != std::string::npos);
  }
}

TEST_CASE("a best-throughput row is swept over InferenceX's search, a point row refuses one") {
  const SourceLocation at{"s.csv", 3, 1};
  const std::vector<validation::InferencexSearch> searches = {{"7", "gpt-oss-120b", {1, 128}, at},
                                                              {"7", "gpt-oss-120b", {8, 48}, at}};
  const auto plans = plan(std::string(kPeakRow), searches);
  REQUIRE(plans.size() == 1);
  const validation::RowPlan& peak = plans[0];
  CHECK(peak.skipped.empty());
  CHECK(peak.scenario == validation::RowScenario::kBestThroughput);
  REQUIRE(peak.searched.size() == 2);
  CHECK(validation::swept_replicas(peak, 8, 63e9, 288e9) == std::vector<int64_t>{1, 8});
  CHECK(validation::max_concurrency_on(peak, 1) == 128);
  CHECK(validation::max_concurrency_on(peak, 8) == 48);
  CHECK(validation::max_concurrency_on(peak, 4) == validation::kMaxSweepConcurrency);

  // Without a line the row keeps its planned replica and the default limit.
  const auto unlisted = plan(std::string(kPeakRow), {});
  REQUIRE(unlisted.size() == 1);
  CHECK(unlisted[0].searched.empty());
  CHECK(validation::swept_replicas(unlisted[0], 8, 63e9, 288e9) ==
        std::vector<int64_t>{unlisted[0].replica_chips});
  CHECK(validation::max_concurrency_on(unlisted[0], unlisted[0].replica_chips) ==
        validation::kMaxSweepConcurrency);

  // A line naming a row that publishes its concurrency is a mistake in the file: refused at
  // its line.
  try {
    plan(std::string(kPointRow), {{"8", "gpt-oss-120b", {1, 128}, at}});
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("s.csv:3") != std::string::npos);
    CHECK(what.find("publishes its concurrency") != std::string::npos);
  }
}

TEST_CASE("a sweep's limit between two doublings is run itself") {
  std::vector<int64_t> ran;
  auto rising = [&](int64_t c) {
    ran.push_back(c);
    validation::SweptPoint p;
    p.concurrency = c;
    p.throughput = 10.0 * static_cast<double>(c);
    return p;
  };
  const validation::SweepOutcome out = validation::sweep_concurrency(rising, std::nullopt, 48);
  CHECK(ran == std::vector<int64_t>{1, 2, 4, 8, 16, 32, 48});
  REQUIRE(out.best);
  CHECK(out.points[*out.best].concurrency == 48);
  ran.clear();
  validation::sweep_concurrency(rising, std::nullopt, 64);
  CHECK(ran == std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64});
}

TEST_CASE(
    "every shipped InferenceX search names a best-throughput row of the shipped measurements") {
  const config::DataPaths paths = config::DataPaths::from_environment();
  const auto searches = validation::shipped_inferencex_searches(paths);
  REQUIRE_FALSE(searches.empty());
  // Planning the shipped rows with the shipped searches refuses a line naming another kind of row.
  const auto plans =
      validation::plan_rows(validation::read_measurements(validation::shipped_measurements(paths)));
  for (const validation::InferencexSearch& s : searches) {
    INFO(s.row_id << " " << s.model);
    bool found = false;
    for (const validation::RowPlan& p : plans) {
      if (p.id != s.row_id) continue;
      found = true;
      CHECK(p.skipped.empty());
      CHECK(p.scenario == validation::RowScenario::kBestThroughput);
      bool has_replica = false;
      for (const validation::SearchedReplica& r : p.searched) {
        has_replica = has_replica || (r.replica_chips == s.space.replica_chips &&
                                      r.max_concurrency == s.space.max_concurrency);
      }
      CHECK(has_replica);
    }
    CHECK(found);
  }
}
