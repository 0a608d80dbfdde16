// The CLI as a user runs it: exit codes and messages for good and bad input.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <set>

#include "sim/config/software_profile.hpp"
#include "tests/e2e/test_support.hpp"
#include "workloads/decompose.hpp"
#include "workloads/model_loader.hpp"

using scoville::test::run_scoville;
using scoville::test::source_dir;
using scoville::test::TempDir;

namespace {
// A small study so that the CLI tests stay fast (also under the sanitizers).
const std::string kSmallRun = "run --chip h200 --model llama-3.1-8b --batch 1 --isl 256 --osl 4";
}  // namespace

TEST_CASE("cli: --version and --help succeed", "[cli]") {
  const auto version = run_scoville("--version");
  CHECK(version.exit_code == 0);
  CHECK_THAT(version.output, Catch::Contains("scoville"));
  const auto help = run_scoville("--help");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.output, Catch::Contains("scoville run"));
}

TEST_CASE("cli: a small run prints a table with both phases", "[cli]") {
  const auto r = run_scoville(kSmallRun);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("prefill"));
  CHECK_THAT(r.output, Catch::Contains("decode"));
  CHECK_THAT(r.output, Catch::Contains("h200"));
  // Not a terminal: no colour codes in piped output.
  CHECK(r.output.find('\033') == std::string::npos);
}

TEST_CASE("cli: --json prints the same study as JSON", "[cli]") {
  const auto r = run_scoville(kSmallRun + " --json");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::StartsWith("{"));
  CHECK_THAT(r.output, Catch::Contains("\"tokens_per_s\""));
  CHECK_THAT(r.output, Catch::Contains("\"energy_per_token_J\""));
}

TEST_CASE("cli: the same chip twice shares its input files in the HDF5 output", "[cli]") {
  TempDir dir("cli-twice");
  const std::string out = dir.file("run.h5");
  const auto r = run_scoville(
      "run --chip h200,h200 --model llama-3.1-8b --batch 1 --isl 128 --osl 2 -o " + out);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(std::filesystem::exists(out));
}

TEST_CASE("cli: an unknown chip is refused with the known ones listed", "[cli]") {
  const auto r = run_scoville("run --chip h900");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("no chip 'h900'"));
  CHECK_THAT(r.output, Catch::Contains("h200"));
  CHECK_THAT(r.output, Catch::Contains("jalapeno"));
}

TEST_CASE("cli: malformed numbers and unknown options are usage errors", "[cli]") {
  CHECK(run_scoville("run --batch abc").exit_code == 2);
  CHECK(run_scoville("run --batch 0").exit_code == 2);
  CHECK(run_scoville("run --frobnicate").exit_code == 2);
  CHECK(run_scoville("launch").exit_code == 2);
}

TEST_CASE("cli: a model that does not fit is refused with the numbers", "[cli]") {
  const auto r =
      run_scoville("run --chip h200 --model llama-3.1-8b --batch 2000 --isl 8192 --osl 1024");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("does not fit"));
  CHECK_THAT(r.output, Catch::Contains("141 GB"));
}

TEST_CASE("cli: an unwritable output path exits 3 and leaves nothing", "[cli]") {
  const auto r = run_scoville(kSmallRun + " -o /nonexistent-dir/run.h5");
  INFO(r.output);
  CHECK(r.exit_code == 3);
  CHECK_FALSE(std::filesystem::exists("/nonexistent-dir"));
}

TEST_CASE("cli: config check accepts every shipped file", "[cli][config]") {
  // Every chip, energy table, system (and calibration overlay), software stack (and stack
  // calibration) and model.
  std::string files;
  int count = 0;
  for (const char* folder :
       {"arch/chips", "arch/energy", "arch/systems", "arch/software", "workloads/models"}) {
    for (const auto& e : std::filesystem::directory_iterator(source_dir() + "/" + folder)) {
      if (e.path().extension() != ".yaml") continue;
      files += " " + e.path().string();
      ++count;
    }
  }
  REQUIRE(count >= 40);
  const auto r = run_scoville("config check" + files);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  size_t oks = 0;
  for (size_t at = r.output.find(": ok ("); at != std::string::npos;
       at = r.output.find(": ok (", at + 1)) {
    ++oks;
  }
  CHECK(oks == static_cast<size_t>(count));
  CHECK_THAT(r.output, Catch::Contains("mi355x.yaml: ok (chip)"));
  CHECK_THAT(r.output, Catch::Contains("qwen3-235b-a22b.yaml: ok (model)"));
  CHECK_THAT(r.output, Catch::Contains("vllm.yaml: ok (software stack)"));
  CHECK_THAT(r.output, Catch::Contains("vllm.op-table.calibration.yaml: ok (stack calibration)"));
}

TEST_CASE("cli: config check reports file, line, key and expectation for a bad chip",
          "[cli][config]") {
  TempDir dir("cli-config");
  std::string chip = scoville::test::read_file(source_dir() + "/arch/chips/h200.yaml");
  // A wrong unit on one field and a misspelt key on another: both must be reported.
  chip.replace(chip.find("capacity: 141 GB"), 16, "capacity: 141 GHz");
  chip.replace(chip.find("latency: 500 ns"), 7, "latncy:");
  const std::string path = dir.write("bad-chip.yaml", chip);
  const auto r = run_scoville("config check " + path);
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains(path + ":"));
  CHECK_THAT(r.output, Catch::Contains("chip.hbm.capacity"));
  CHECK_THAT(r.output, Catch::Contains("expected a size in bytes"));
  CHECK_THAT(r.output, Catch::Contains("did you mean 'latency'"));
}

TEST_CASE("cli: config dump fills in derived figures", "[cli][config]") {
  const auto r = run_scoville("config dump " + source_dir() + "/arch/chips/h200.yaml");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("peak_bf16"));
  CHECK_THAT(r.output, Catch::Contains("peak_hbm_bandwidth: 4.8 TB/s"));
}

TEST_CASE("cli: a missing file is reported by name", "[cli][config]") {
  const auto r = run_scoville("config check /no/such/chip.yaml");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("/no/such/chip.yaml"));
}

TEST_CASE("cli: a software profile adds launch and host time beside hardware time", "[cli]") {
  using namespace scoville;
  const test::TempDir dir("software");
  const std::string study = dir.write("study.yaml", R"(study:
  name: sw
  chips: [h200]
  model: llama-3.1-8b
  batch: 1
  isl: 256
  osl: 1
  software: gpu-launch
)");
  const std::string env = "SCOVILLE_DATA_DIR=" + test::source_dir();
  const auto with = test::run_scoville("run --json --study " + study, env);
  REQUIRE(with.exit_code == 0);
  INFO(with.output);
  // Expected prefill software time from the profile and the iteration's ops and layers.
  const config::DataPaths paths{test::source_dir()};
  const config::SoftwareProfile profile = config::load_software("gpu-launch", paths);
  const workloads::ModelConfig model =
      workloads::load_model(paths.resolve("llama-3.1-8b", "workloads/models"));
  const workloads::IterationTrace prefill =
      workloads::decompose_iteration(model, {workloads::Phase::kPrefill, 1, 256, 256});
  std::set<int> layers;
  for (const workloads::Op& op : prefill.ops) {
    if (op.layer >= 0) layers.insert(op.layer);
  }
  const double expected =
      profile
          .overhead(static_cast<int64_t>(prefill.ops.size()), static_cast<int64_t>(layers.size()))
          .si();
  std::smatch m;
  REQUIRE(std::regex_search(with.output, m,
                            std::regex("\"name\": \"prefill\", \"time_s\": ([0-9.eE+-]+), "
                                       "\"software_time_s\": ([0-9.eE+-]+)")));
  CHECK(std::stod(m[2].str()) == Approx(expected).epsilon(1e-6));
  CHECK(with.output.find("\"software\": \"gpu-launch\"") != std::string::npos);

  // Without a profile: software time is zero and the study says none.
  const auto without = test::run_scoville(
      "run --json --chip h200 --model llama-3.1-8b --batch 1 --isl 256 --osl 1", env);
  REQUIRE(without.exit_code == 0);
  CHECK(without.output.find("\"software\": \"none\"") != std::string::npos);
  CHECK(without.output.find("\"software_time_s\": 0,") != std::string::npos);
}
