// `scoville trace` as a user runs it: the summary, the JSON, the trace files and the errors.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>

// Before test_support.hpp: <sys/wait.h> defines a si_value macro that units.hpp would meet.
#include "workloads/model_loader.hpp"
#include "workloads/trace/native_trace.hpp"

#include "tests/e2e/test_support.hpp"

using Catch::Matchers::Contains;
using scoville::test::read_file;
using scoville::test::run_scoville;
using scoville::test::source_dir;
using scoville::test::TempDir;

namespace {
const std::string kDecode =
    "trace --model llama-3.1-8b --phase decode --batch 8 --context 1024 --tp 2";
}  // namespace

TEST_CASE("cli trace: prints per-layer work per chip and the whole-model totals", "[cli]") {
  const auto r = run_scoville(kDecode + " --system h200");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("role decode: 2 chip(s)"));
  CHECK_THAT(r.output, Contains("whole model, all chips"));
  CHECK_THAT(r.output, Contains("left for KV"));
  // One row per layer plus the embedding / head row and the totals.
  const auto model =
      scoville::workloads::load_model(source_dir() + "/workloads/models/llama-3.1-8b.yaml");
  const std::regex layer_row("\n  [0-9]+ ");
  const auto rows = std::distance(std::sregex_iterator(r.output.begin(), r.output.end(), layer_row),
                                  std::sregex_iterator());
  CHECK(rows == model.layers());
}

TEST_CASE("cli trace: --json gives the same summary as JSON, deterministically", "[cli]") {
  const auto a = run_scoville(kDecode + " --json");
  const auto b = run_scoville(kDecode + " --json");
  REQUIRE(a.exit_code == 0);
  CHECK(a.output == b.output);
  CHECK_THAT(a.output, Contains("\"roles\": ["));
  CHECK_THAT(a.output, Contains("\"whole_model\": {\"flops\": "));
  CHECK_THAT(a.output, Contains("\"collective_bytes\""));
}

TEST_CASE("cli trace: -o writes one native trace per chip role that reads back", "[cli]") {
  TempDir dir("trace-cli");
  const auto r = run_scoville(
      "trace --model gpt-oss-120b --phase decode --batch 8 --context 512 --tp 2 --ep 2 --pp 2 "
      "-o " +
      dir.file("out"));
  REQUIRE(r.exit_code == 0);
  for (const char* role : {"decode.stage0", "decode.stage1"}) {
    const std::string path = dir.file("out") + "/" + role + ".trace.yaml";
    INFO(path);
    CHECK_THAT(r.output, Contains("wrote " + path));
    const auto trace = scoville::workloads::read_native_trace(path);
    CHECK(trace.role == role);
    CHECK(trace.multiplicity == 2);
  }
  // Same inputs, same bytes.
  const std::string first = read_file(dir.file("out") + "/decode.stage0.trace.yaml");
  REQUIRE(run_scoville(
              "trace --model gpt-oss-120b --phase decode --batch 8 --context 512 --tp 2 --ep 2 "
              "--pp 2 -o " +
              dir.file("again"))
              .exit_code == 0);
  CHECK(read_file(dir.file("again") + "/decode.stage0.trace.yaml") == first);
}

TEST_CASE("cli trace: an impossible mapping is refused with the reason", "[cli]") {
  const auto r =
      run_scoville("trace --model llama-3.1-8b --phase decode --batch 8 --context 1024 --tp 3");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("<command line>"));
  CHECK_THAT(r.output, Contains("tp 3 does not divide the 32 attention heads"));
  const auto chips = run_scoville(kDecode + " --chips 8");
  CHECK(chips.exit_code == 2);
  CHECK_THAT(chips.output, Contains("but the pool has 8"));
}

TEST_CASE("cli trace: a model that does not fit gives the numbers", "[cli]") {
  const auto r = run_scoville(kDecode + " --hbm '4 GB'");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("does not fit"));
  CHECK_THAT(r.output, Contains("per chip = weights"));
  CHECK_THAT(r.output, Contains("but has 4 GB of HBM"));
}

TEST_CASE("cli trace: bad flags are usage errors", "[cli]") {
  CHECK(run_scoville("trace --model llama-3.1-8b --batch 8 --context 16").exit_code == 2);
  const auto phase =
      run_scoville("trace --model llama-3.1-8b --phase middle --batch 8 --context 1024");
  CHECK(phase.exit_code == 2);
  CHECK_THAT(phase.output, Contains("prefill or decode"));
  // A single-valued flag given twice is refused, not silently overridden.
  const auto twice = run_scoville(kDecode + " --phase prefill");
  CHECK(twice.exit_code == 2);
  CHECK_THAT(twice.output, Contains("--phase is given twice (it takes one value)"));
  const auto format = run_scoville(kDecode + " --format xml -o /tmp/unused");
  CHECK(format.exit_code == 2);
  CHECK_THAT(format.output, Contains("--format expects native or chakra"));
  CHECK(run_scoville(kDecode + " --hbm fast").exit_code == 2);
}

TEST_CASE("cli trace: --mapping takes the pool named after the phase from a file", "[cli]") {
  TempDir dir("trace-mapping");
  const std::string file = dir.write("m.yaml",
                                     "mapping:\n"
                                     "  prefill: {chips: 2, tp: 2}\n"
                                     "  decode: {chips: 6, tp: 3}\n");
  const auto prefill = run_scoville(
      "trace --model llama-3.1-8b --phase prefill --batch 2 --context 64 --mapping " + file);
  CHECK(prefill.exit_code == 0);
  CHECK_THAT(prefill.output, Contains("on 2 chips (tp 2,"));
  const auto decode = run_scoville(
      "trace --model llama-3.1-8b --phase decode --batch 2 --context 64 --mapping " + file);
  CHECK(decode.exit_code == 2);
  CHECK_THAT(decode.output, Contains(file + ":3:11: mapping.decode.tp"));
  CHECK_THAT(decode.output, Contains("but the pool has 6"));
  CHECK(run_scoville(kDecode + " --mapping " + file).exit_code == 2);  // excludes --tp
}

TEST_CASE("cli trace: --sequence-parallel swaps all-reduces for reduce-scatter + all-gather",
          "[cli]") {
  TempDir dir("trace-sp");
  const auto r = run_scoville(kDecode + " --sequence-parallel -o " + dir.file("out"));
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("sequence parallel"));
  const std::string text = read_file(dir.file("out") + "/decode.trace.yaml");
  CHECK_THAT(text, Contains("sequence_parallel: true"));
  CHECK_THAT(text, Contains("kind: reduce_scatter"));
  CHECK_THAT(text, !Contains("kind: all_reduce"));
}

TEST_CASE("cli trace: a system file stands for its chip's HBM", "[cli]") {
  // arch/systems/gb200-nvl72.yaml names chip gb200: both give the same memory check.
  const auto by_system = run_scoville(kDecode + " --system gb200-nvl72");
  const auto by_chip = run_scoville(kDecode + " --system gb200");
  INFO(by_system.output);
  REQUIRE(by_system.exit_code == 0);
  CHECK(by_system.output == by_chip.output);
  CHECK(by_system.output != run_scoville(kDecode + " --system h200").output);
}
