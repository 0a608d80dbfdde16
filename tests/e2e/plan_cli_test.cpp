// `scoville plan` as a user runs it: the ranked table, the results file, limits nothing meets,
// bad flags, and the same file from the same command.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "tests/e2e/test_support.hpp"

using scoville::test::read_file;
using scoville::test::run_scoville;
using scoville::test::TempDir;

namespace {
const std::string kPlan =
    "plan --system h200-hgx8 --model llama-3.1-8b --isl 256 --osl 32 --concurrency 4 "
    "--max-batch 2,4 --fidelity roofline --no-calibration";
}

TEST_CASE("cli: plan ranks the configurations that meet the limits", "[cli][plan]") {
  const auto r = run_scoville(kPlan + " --ttft-p99 2s --tpot-p99 100ms --top 3");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("# scoville plan: llama-3.1-8b on h200-hgx8"));
  CHECK_THAT(r.output, Catch::Contains("## load N=4:"));
  CHECK_THAT(r.output, Catch::Contains("the best 3 shown"));
  CHECK_THAT(r.output, Catch::Contains("ttft_p99_ms"));
  CHECK_THAT(r.output, Catch::Contains("\n   1  "));
  CHECK_THAT(r.output, Catch::Contains("\n   3  "));
  CHECK_THAT(r.output, !Catch::Contains("\n   4  "));
  // A disaggregated split is among the points tried (the CSV lists them all).
  const TempDir dir("plan-cli");
  const auto csv = run_scoville(kPlan + " --ttft-p90 2000 --tpot-p50 100 -o " + dir.file("p.csv"));
  REQUIRE(csv.exit_code == 0);
  const std::string text = read_file(dir.file("p.csv"));
  CHECK(text.rfind("rank,load,concurrency,rate,mapping,", 0) == 0);
  CHECK_THAT(text, Catch::Contains("prefill:tp"));
  CHECK_THAT(text, Catch::Contains("ttft_p90"));
  CHECK_THAT(text, Catch::Contains("tpot_p50"));
}

TEST_CASE("cli: plan with limits nothing meets says so and fails", "[cli][plan]") {
  const TempDir dir("plan-miss");
  const auto r = run_scoville(kPlan + " --ttft-p99 1us --tpot-p99 1us -o " + dir.file("p.h5"));
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("no configuration meets TTFT p99 <= 0.001 ms"));
  CHECK_THAT(r.output, Catch::Contains("the lowest TTFT p99 reached is"));
  // The points are still saved, all unranked, for a look at how far off they are.
  CHECK_THAT(read_file(dir.file("p.h5")), Catch::Contains("HDF"));
}

TEST_CASE("cli: plan refuses bad flags", "[cli][plan]") {
  const std::string base = "plan --system h200-hgx8 --model llama-3.1-8b --isl 256 --osl 32 ";
  struct Case {
    std::string args, expected;
  };
  for (const Case& c : std::vector<Case>{
           {"--concurrency 4 --tpot-p99 50ms", "a TTFT and a TPOT limit are required"},
           {"--ttft-p99 1s --tpot-p99 50ms", "give the load as one of"},
           {"--concurrency 4 --rate 2 --ttft-p99 1s --tpot-p99 50ms", "give the load as one of"},
           {"--concurrency 4 --ttft-p99 fast --tpot-p99 50ms", "--ttft-p99"},
           {"--concurrency 4 --ttft-p99 -3 --tpot-p99 50ms", "positive duration"},
           {"--concurrency 4 --ttft-p95 1s --tpot-p99 50ms", "unknown option"},
           {"--concurrency 4 --ttft-p99 1s --tpot-p99 50ms --fidelity cycle",
            "op-table or roofline"},
           {"--concurrency 4 --ttft-p99 1s --tpot-p99 50ms -o out.json", "FILE.h5 or FILE.csv"},
           {"--requests " + scoville::test::source_dir() +
                "/workloads/traces/requests/README.md --ttft-p99 1s --tpot-p99 50ms",
            "README.md:3:1: unknown request trace format"},
       }) {
    const auto r = run_scoville(base + c.args);
    INFO(c.args << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains(c.expected));
  }
}

TEST_CASE("cli: plan writes the same results for the same command", "[cli][plan]") {
  const TempDir dir("plan-determinism");
  const std::string plan_rate =
      "plan --system h200-hgx8 --model llama-3.1-8b --isl 256 --osl 32 --rate 4 --num-prompts 24 "
      "--max-batch 2,4 --fidelity roofline --no-calibration --ttft-p99 2s --tpot-p99 100ms -o ";
  const auto a = run_scoville(plan_rate + dir.file("a.csv"));
  const auto b = run_scoville(plan_rate + dir.file("b.csv"));
  INFO(a.output);
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  CHECK(read_file(dir.file("a.csv")) == read_file(dir.file("b.csv")));
  CHECK_THAT(read_file(dir.file("a.csv")), Catch::Contains("rate=4/s"));
}

TEST_CASE("cli: plan takes its system, model, load and limits from a scenario", "[cli][plan]") {
  const TempDir dir("plan-scenario");
  const std::string scenario = dir.file("small.yaml");
  {
    std::ofstream f(scenario);
    f << "scenario:\n  name: plan-small\n  system: {chip: h200, chips: 2}\n"
         "  model: llama-3.1-8b\n  mapping: {default: {chips: 1, tp: 1}}\n"
         "  scheduler: {max_num_batched_tokens: 4096}\n"
         "  requests: {pattern: closed_loop, isl: 256, osl: 32, concurrency: 4}\n"
         "  slo: {ttft: 2 s, tpot: 100 ms}\n  seed: 3\n";
  }
  const std::string plan =
      "plan --scenario " + scenario + " --max-batch 2,4 --fidelity roofline --no-calibration";
  const auto r = run_scoville(plan + " -o " + dir.file("p.h5"));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("# scoville plan: llama-3.1-8b on "));
  CHECK_THAT(r.output, Catch::Contains("(h200, 2 chips)"));
  CHECK_THAT(r.output, Catch::Contains("# scenario plan-small (" + scenario +
                                       "): load N=4, limits TTFT p99 2000 ms, TPOT p99 100 ms"));
  CHECK_THAT(r.output, Catch::Contains("## load N=4:"));
  const std::string h5 = read_file(dir.file("p.h5"));
  CHECK_THAT(h5, Catch::Contains("plan-small"));
  CHECK_THAT(h5, Catch::Contains("scenario_file"));

  // The flags override the file: another load, another limit, other lengths.
  const auto o =
      run_scoville(plan + " --concurrency 2 --tpot-p90 1s --isl 128 -o " + dir.file("o.csv"));
  INFO(o.output);
  REQUIRE(o.exit_code == 0);
  CHECK_THAT(o.output, Catch::Contains("load N=2, limits TTFT p99 2000 ms, TPOT p90 1000 ms"));
  CHECK_THAT(read_file(dir.file("o.csv")), Catch::Contains("tpot_p90"));
  const auto m = run_scoville(plan + " --ttft-p99 1us");
  CHECK(m.exit_code == 2);
  CHECK_THAT(m.output, Catch::Contains("no configuration meets TTFT p99 <= 0.001 ms"));

  // A scenario without both limits needs them as flags.
  const std::string no_slo = dir.file("no-slo.yaml");
  {
    std::ofstream f(no_slo);
    f << "scenario:\n  system: {chip: h200, chips: 1}\n  model: llama-3.1-8b\n"
         "  mapping: {default: {chips: 1, tp: 1}}\n"
         "  requests: {pattern: poisson, isl: 256, osl: 32, rate: 2, num_prompts: 16}\n"
         "  slo: {ttft: 2 s}\n";
  }
  const auto n = run_scoville("plan --scenario " + no_slo + " --fidelity roofline");
  CHECK(n.exit_code == 2);
  CHECK_THAT(n.output, Catch::Contains("the scenario's slo has not both"));
  const auto p = run_scoville("plan --scenario " + no_slo +
                              " --fidelity roofline --no-calibration --max-batch 4 --tpot-p99 1s");
  INFO(p.output);
  CHECK(p.exit_code == 0);
  CHECK_THAT(p.output, Catch::Contains("load rate=2/s"));
}
