// `scoville run --precision` and a study file's `precision:` map, as a user runs them.
#include <catch2/catch.hpp>

#include <string>

#include "test_support.hpp"

using namespace scoville::test;

namespace {
const std::string kRun = "run --chip h200 --model llama-3.1-8b --batch 1 --isl 64 --osl 2 --json";

// The integer after "key": in the JSON output.
double json_number(const std::string& json, const std::string& key) {
  const size_t at = json.find("\"" + key + "\": ");
  REQUIRE(at != std::string::npos);
  return std::stod(json.substr(at + key.size() + 4));
}
}  // namespace

TEST_CASE("cli: --precision halves BF16 weights and KV cache at FP8", "[cli][precision]") {
  const auto base = run_scoville(kRun);
  const auto fp8 = run_scoville(kRun + " --precision weights=fp8,embeddings=fp8,kv_cache=fp8");
  INFO(base.output << fp8.output);
  REQUIRE(base.exit_code == 0);
  REQUIRE(fp8.exit_code == 0);
  CHECK(json_number(fp8.output, "weight_bytes") ==
        Approx(json_number(base.output, "weight_bytes") / 2.0));
  CHECK(json_number(fp8.output, "kv_bytes") == Approx(json_number(base.output, "kv_bytes") / 2.0));
}

TEST_CASE("cli: a bad --precision is an input error naming the item", "[cli][precision]") {
  const auto r = run_scoville(kRun + " --precision kv_cache=fp9");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("--precision kv_cache") &&
                           Catch::Contains("unknown number format 'fp9'"));
}

TEST_CASE("cli: a study precision map applies, and its errors are located", "[cli][precision]") {
  TempDir dir("precision-study");
  const std::string study =
      "study:\n  model: llama-3.1-8b\n  chips: [h200]\n  batch: 1\n"
      "  isl: 64\n  osl: 2\n  precision:\n    kv_cache: fp8\n";
  const auto base = run_scoville(kRun);
  const auto r = run_scoville("run --json --study " + dir.write("ok.yaml", study));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.output, "kv_bytes") == Approx(json_number(base.output, "kv_bytes") / 2.0));

  const std::string bad_path = dir.write("bad.yaml", study + "    weigths: fp8\n");
  const auto bad = run_scoville("run --study " + bad_path);
  INFO(bad.output);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains(bad_path + ":9:") &&
                             Catch::Contains("study.precision.weigths") &&
                             Catch::Contains("did you mean 'weights'"));
}

TEST_CASE("cli: config check accepts every model of the library", "[cli][config]") {
  std::string files;
  for (const char* name : {"deepseek-r1", "kimi-k2.5", "llama-3.1-70b", "llama-3.3-70b",
                           "llama-3.1-405b", "llama-2-70b", "gpt-oss-120b"}) {
    files += " " + source_dir() + "/workloads/models/" + name + ".yaml";
  }
  const auto r = run_scoville("config check" + files);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("deepseek-r1.yaml: ok (model)") &&
                           Catch::Contains("kimi-k2.5.yaml: ok (model)"));
}
