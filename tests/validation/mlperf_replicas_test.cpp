// The MLPerf runs' published replicas (workloads/measurements/mlperf-replicas.csv): the file's
// reader and its located errors, the results folder a row's notes name, a row planned on its
// run's replica, and the replica sizes a sweep then tries.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/validation/concurrency_sweep.hpp"
#include "sim/validation/measurement_rows.hpp"
#include "sim/validation/mlperf_benchmarks.hpp"
#include "sim/validation/mlperf_replicas.hpp"

using namespace scoville;

namespace {

std::string parse_error(const std::string& body) {
  try {
    validation::parse_mlperf_replicas("# comment\nlocation,replica_chips,source\n" + body, "r.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Plans the measurement rows in `body` with the shipped benchmarks and these replicas.
std::vector<validation::RowPlan> plan(const std::string& body,
                                      const std::vector<validation::PublishedReplica>& replicas) {
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("scoville_mlperf_replicas_" + std::to_string(::getpid()) + ".csv"))
                               .string();
  {
    std::ofstream out(file);
    out << "id,system,chips,model,precision,framework,isl,osl,concurrency,throughput_metric,"
           "throughput,interactivity_tok_s_user,ttft_ms,tpot_ms,notes\n"
        << body;
  }
  const auto benchmarks =
      validation::shipped_mlperf_benchmarks(config::DataPaths::from_environment());
  const auto plans =
      validation::plan_rows(validation::read_measurements(file), {}, benchmarks, replicas);
  std::filesystem::remove(file);
  return plans;
}

}  // namespace

TEST_CASE("the replicas file reads each run and locates a bad value") {
  const auto replicas = validation::parse_mlperf_replicas(
      "location,replica_chips,source\nclosed/A/results/S/gpt-oss-120b/Offline,1,x\n"
      "closed/A/results/S/gpt-oss-120b/Server,4,y\n",
      "r.csv");
  REQUIRE(replicas.size() == 2);
  CHECK(replicas[1].location == "closed/A/results/S/gpt-oss-120b/Server");
  CHECK(replicas[1].replica_chips == 4);
  CHECK(replicas[1].where.line == 3);
  CHECK(validation::find_replica(replicas, "closed/A/results/S/gpt-oss-120b/Offline") ==
        &replicas[0]);
  CHECK(validation::find_replica(replicas, "closed/A/results/S/gpt-oss-120b") == nullptr);

  CHECK(parse_error(",1,x\n").find("r.csv:3") != std::string::npos);
  CHECK(parse_error("./closed/A/Offline,1,x\n").find("location") != std::string::npos);
  CHECK(parse_error("closed/A/Offline/,1,x\n").find("trailing") != std::string::npos);
  CHECK(parse_error("closed/A/Offline,1,x\nclosed/A/Offline,2,y\n").find("r.csv:4") !=
        std::string::npos);
  for (const char* bad : {"0", "1.5", "abc", "2048", ""}) {
    INFO(bad);
    const std::string e = parse_error(std::string("closed/A/Offline,") + bad + ",x\n");
    CHECK(e.find("r.csv:3") != std::string::npos);
    CHECK(e.find("replica_chips") != std::string::npos);
  }
}

TEST_CASE("a row's notes name its run's results folder") {
  CHECK(validation::notes_location(
            "MLPerf v6.0; scenario Offline; location ./closed/AMD/results/8xMI355X/gpt-oss-120b/"
            "Offline/performance/run_1; software PyTorch") ==
        std::optional<std::string>("closed/AMD/results/8xMI355X/gpt-oss-120b/Offline"));
  CHECK(validation::notes_location("scenario Server; location closed/Nebius/results/B200x8_TRT/"
                                   "llama3.1-405b/Server; software TensorRT") ==
        std::optional<std::string>("closed/Nebius/results/B200x8_TRT/llama3.1-405b/Server"));
  CHECK_FALSE(validation::notes_location("MLPerf v6.0 scenario Offline (rack-scale entry)"));
}

TEST_CASE("an MLPerf row runs on its run's published replica, another is swept") {
  const std::string listed = "closed/X/results/S/gpt-oss-120b/Offline";
  const auto plans = plan(
      "1,NVIDIA 8xB200-SXM-180GB [B200],8,gpt-oss-120b,mxfp4,vLLM,,,,output_tok_s_per_chip,"
      "11000,,,,\"scenario Offline; location ./" +
          listed +
          "/performance/run_1; software vLLM\"\n"
          "2,NVIDIA 8xB200-SXM-180GB [B200],8,gpt-oss-120b,mxfp4,vLLM,,,,output_tok_s_per_chip,"
          "11000,,,,\"scenario Offline; location ./closed/X/results/S/gpt-oss-120b/Server/"
          "performance/run_1\"\n"
          "3,NVIDIA 8xB200-SXM-180GB [B200],2,gpt-oss-120b,mxfp4,vLLM,,,,output_tok_s_per_chip,"
          "11000,,,,\"scenario Offline; location ./" +
          listed + "\"\n",
      {{listed, 4, {"r.csv", 2, 1}}});
  REQUIRE(plans.size() == 3);
  CHECK(plans[0].skipped.empty());
  CHECK(plans[0].replica_published);
  CHECK(plans[0].replica_chips == 4);
  CHECK_FALSE(plans[1].replica_published);  // not listed: swept as before
  CHECK(plans[1].replica_chips == 1);       // the benchmark's replica_chips
  // A published replica larger than the row's chips is refused, naming the line.
  CHECK(plans[2].skipped.find("r.csv:2") != std::string::npos);

  // The sweep keeps a published replica and tries sizes otherwise.
  const double weights = 63e9, hbm = 180e9;
  CHECK(validation::swept_replicas(plans[0], 8, weights, hbm) == std::vector<int64_t>{4});
  CHECK(validation::swept_replicas(plans[1], 8, weights, hbm) == std::vector<int64_t>{1, 2, 4, 8});
  // Weights over the HBM share start the sizes higher.
  CHECK(validation::swept_replicas(plans[1], 8, 300e9, hbm) == std::vector<int64_t>{4, 8});
}

TEST_CASE("every shipped published replica names a row of the shipped measurements") {
  const config::DataPaths paths = config::DataPaths::from_environment();
  const auto replicas = validation::shipped_mlperf_replicas(paths);
  REQUIRE_FALSE(replicas.empty());
  const auto rows = validation::read_measurements(validation::shipped_measurements(paths));
  for (const validation::PublishedReplica& p : replicas) {
    INFO(p.location);
    bool named = false;
    for (const validation::MeasurementRow& r : rows) {
      named = named || validation::notes_location(r.at("notes")) == p.location;
    }
    CHECK(named);
  }
}
