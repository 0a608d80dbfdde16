// MLPerf Offline / Server / Interactive rows and InferenceX best-throughput rows: the benchmarks
// file (workloads/measurements/mlperf-benchmarks.csv), how rows are planned as sweeps, and how a
// sweep chooses its point.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/validation/concurrency_sweep.hpp"
#include "sim/validation/measurement_rows.hpp"
#include "sim/validation/mlperf_benchmarks.hpp"
#include "workloads/requests/length_samples.hpp"

using namespace scoville;
using validation::LatencyLimits;
using validation::RowScenario;
using validation::SweptPoint;

namespace {

const char* kHeader =
    "model,dataset,mean_input_tokens,mean_output_tokens,replica_chips,server_ttft_ms,"
    "server_tpot_ms,interactive_ttft_ms,interactive_tpot_ms\n";

std::string parse_error(const std::string& body) {
  try {
    validation::parse_mlperf_benchmarks(std::string("# comment\n") + kHeader + body, "b.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::vector<validation::RowPlan> plan(const std::string& body) {
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("scoville_mlperf_rows_" + std::to_string(::getpid()) + ".csv"))
                               .string();
  {
    std::ofstream out(file);
    out << "id,system,chips,model,precision,framework,isl,osl,concurrency,throughput_metric,"
           "throughput,interactivity_tok_s_user,ttft_ms,tpot_ms,notes\n"
        << body;
  }
  const std::vector<validation::RowPlan> plans =
      validation::plan_rows(validation::read_measurements(file));
  std::filesystem::remove(file);
  return plans;
}

SweptPoint point(int64_t c, double tput, double ttft, double tpot) {
  SweptPoint p;
  p.concurrency = c;
  p.throughput = tput;
  p.p99_ttft_ms = ttft;
  p.p99_tpot_ms = tpot;
  return p;
}

}  // namespace

TEST_CASE("the benchmarks file reads every column and locates a bad value") {
  const auto b = validation::parse_mlperf_benchmarks(
      std::string("# sources\n") + kHeader + "llama-2-70b,OpenOrca,700,294.45,1,2000,200,450,40\n",
      "b.csv");
  REQUIRE(b.size() == 1);
  CHECK(b[0].mean_input_tokens == 700);
  CHECK(b[0].mean_output_tokens == Approx(294.45));
  CHECK(b[0].server.tpot_ms == 200);
  CHECK(b[0].interactive.ttft_ms == 450);
  CHECK(b[0].where.line == 3);
  // Line 3 (after a comment and the header), column 3: mean_input_tokens.
  const std::string bad = parse_error("llama-2-70b,OpenOrca,-5,294,1,2000,200,450,40\n");
  CHECK(bad.find("b.csv:3:3") != std::string::npos);
  CHECK(bad.find("mean_input_tokens") != std::string::npos);
  CHECK(bad.find("'-5'") != std::string::npos);
  CHECK(parse_error("x,d,700,294,1.5,2000,200,450,40\n").find("replica_chips") !=
        std::string::npos);
  CHECK(parse_error("x,d,700,294,1,2000,abc,450,40\n").find("server_tpot_ms") != std::string::npos);
  CHECK(parse_error("x,d,700,294,1,2000,200,450,40\nx,d,700,294,1,2000,200,450,40\n")
            .find("a second line for model 'x'") != std::string::npos);
  std::string missing;
  try {
    validation::parse_mlperf_benchmarks("model,dataset\nx,d\n", "b.csv");
  } catch (const InputError& e) {
    missing = e.what();
  }
  CHECK(missing.find("mean_input_tokens") != std::string::npos);
}

TEST_CASE("a benchmark's lengths file is read beside it and must match its mean input") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("scoville-lengths-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "lengths");
  {
    std::ofstream f(dir / "lengths" / "x.csv");
    f << "# a comment\ninput_tokens,output_tokens\n100,10\n300,30\n";
  }
  const std::string header = std::string(kHeader).substr(0, std::string(kHeader).size() - 1) +
                             ",interactive_mtp_depth,lengths_file\n";
  const std::string path = (dir / "b.csv").string();
  const auto b = validation::parse_mlperf_benchmarks(
      header + "x,d,200,50,1,2000,200,450,40,0,lengths/x.csv\n", path);
  REQUIRE(b.size() == 1);
  REQUIRE(b[0].lengths);
  REQUIRE(b[0].lengths->size() == 2);
  CHECK((*b[0].lengths)[1].input_tokens == 300);
  CHECK((*b[0].lengths)[1].output_tokens == 30);
  const auto error = [&](const std::string& row) {
    try {
      validation::parse_mlperf_benchmarks(header + row, path);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  // The samples' mean input (200) must be the row's: 250 is another dataset.
  const std::string mismatch = error("x,d,250,50,1,2000,200,450,40,0,lengths/x.csv\n");
  CHECK(mismatch.find("b.csv:2:") != std::string::npos);
  CHECK(mismatch.find("lengths_file") != std::string::npos);
  CHECK(mismatch.find("mean input is 200") != std::string::npos);
  const std::string absent = error("x,d,200,50,1,2000,200,450,40,0,lengths/none.csv\n");
  CHECK(absent.find("lengths_file") != std::string::npos);
  CHECK(absent.find("none.csv") != std::string::npos);
  {
    std::ofstream f(dir / "lengths" / "bad.csv");
    f << "input_tokens,output_tokens\n100,10\n300,-3\n";
  }
  const std::string bad = error("x,d,200,50,1,2000,200,450,40,0,lengths/bad.csv\n");
  CHECK(bad.find("bad.csv:3:5") != std::string::npos);  // the file, line and column of -3
  CHECK(bad.find("output_tokens") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("the shipped benchmarks file holds the MLPerf limits of loadgen/mlperf.conf") {
  const auto b = validation::shipped_mlperf_benchmarks(config::DataPaths{SCOVILLE_SOURCE_DIR});
  const validation::MlperfBenchmark* r1 = validation::find_benchmark(b, "deepseek-r1");
  REQUIRE(r1 != nullptr);
  CHECK(r1->server.ttft_ms == 2000);
  CHECK(r1->server.tpot_ms == 80);
  CHECK(r1->interactive.tpot_ms == 15);
  const validation::MlperfBenchmark* l405 = validation::find_benchmark(b, "llama-3.1-405b");
  REQUIRE(l405 != nullptr);
  CHECK(l405->server.ttft_ms == 6000);
  CHECK(l405->server.tpot_ms == 175);
}

TEST_CASE("an Interactive scenario whose rules set speculative decoding runs its drafts") {
  // The optional column: empty or 0 is none; a depth must be whole and in range, located.
  const std::string header =
      "model,dataset,mean_input_tokens,mean_output_tokens,replica_chips,server_ttft_ms,"
      "server_tpot_ms,interactive_ttft_ms,interactive_tpot_ms,interactive_mtp_depth\n";
  const auto b = validation::parse_mlperf_benchmarks(
      header +
          "deepseek-r1,d,800,3886,8,2000,80,1500,15,2\nllama-2-70b,d,700,294,1,2000,200,450,"
          "40,\n",
      "b.csv");
  REQUIRE(b.size() == 2);
  CHECK(b[0].interactive_mtp_depth == 2);
  CHECK(b[1].interactive_mtp_depth == 0);
  std::string bad;
  try {
    validation::parse_mlperf_benchmarks(header + "deepseek-r1,d,800,3886,8,2000,80,1500,15,2.5\n",
                                        "b.csv");
  } catch (const InputError& e) {
    bad = e.what();
  }
  CHECK(bad.find("b.csv:2:10") != std::string::npos);
  CHECK(bad.find("interactive_mtp_depth") != std::string::npos);
  // The shipped file: DeepSeek R1's Interactive rows (MLPerf v6.0) run MTP, its Server rows not.
  const auto plans = plan(
      "166,NVIDIA GB200 NVL72 [GB200],72,DeepSeek-R1,fp4,TensorRT,,,,output_tok_s_per_chip,3337.8,"
      ",,,\"scenario Interactive; mean output tokens/sample 3779\"\n"
      "172,Nebius B200 n1 [B200],8,DeepSeek-R1,fp4,TensorRT,,,,output_tok_s_per_chip,6461.6,,,,"
      "\"scenario Server; mean output tokens/sample 3735\"\n");
  REQUIRE(plans.size() == 2);
  CHECK(plans[0].skipped.empty());
  CHECK(plans[0].mtp);
  CHECK(validation::row_scheduler(plans[0]).mtp.depth == 3);
  CHECK_FALSE(plans[1].mtp);
  CHECK(validation::row_scheduler(plans[1]).mtp.depth == 0);
}

TEST_CASE("a row's notes give its MLPerf scenario and mean output") {
  CHECK(validation::notes_scenario("MLPerf v5.1; scenario Offline; total 1 Tokens/s") ==
        RowScenario::kOffline);
  CHECK(validation::notes_scenario("x; scenario Server; y") == RowScenario::kServer);
  CHECK(validation::notes_scenario("NVIDIA scenario Interactive") == RowScenario::kInteractive);
  CHECK(!validation::notes_scenario("MLPerf v5.0 closed AMD Offline 33,928.1 tok/s"));
  CHECK(validation::notes_mean_output("...; mean output tokens/sample 3759") == 3759.0);
  CHECK(!validation::notes_mean_output("no such field"));
}

TEST_CASE("a Server point over the TPOT limit is not chosen, and Offline takes the maximum") {
  const LatencyLimits limits{2000, 200};
  const std::vector<SweptPoint> points{point(8, 100, 300, 50), point(16, 180, 600, 120),
                                       point(32, 250, 900, 210), point(64, 260, 2500, 150)};
  // Offline: the highest throughput, whatever its latencies.
  CHECK(validation::choose_point(points, std::nullopt) == size_t{3});
  // Server: 32 breaks TPOT, 64 breaks TTFT; 16 is the best within both.
  CHECK(validation::choose_point(points, limits) == size_t{1});
  // None within: no choice.
  CHECK(!validation::choose_point(points, LatencyLimits{100, 10}));
}

TEST_CASE("a Server row's Poisson rate: the highest within the limits, by bisection") {
  // A queue whose p99 TTFT grows without bound as the rate nears 10 requests/s (M/M/1-like):
  // 200 ms / (1 - rate / 10); within 2 s up to 9 requests/s.
  std::vector<double> ran;
  const auto queue = [&](double rate) {
    ran.push_back(rate);
    SweptPoint p = point(64, rate, 200.0 / std::max(1e-9, 1.0 - rate / 10.0), 50);
    if (rate >= 10.0) p.p99_ttft_ms = 1e9;
    return p;
  };
  const validation::RateSearch s = validation::search_poisson_rate(queue, 12.0, {2000, 100});
  REQUIRE(s.best);
  const double best = s.points[*s.best].rate;
  CHECK(best <= 9.0);
  CHECK(best >= 9.0 - 12.0 / 64.0);  // within one bisection step of the boundary
  CHECK(s.points[*s.best].p99_ttft_ms <= 2000);
  CHECK(ran.size() == size_t{1 + validation::kRateSearchSteps});
  CHECK(ran.front() == 12.0);  // the highest rate first
  // Within the limits at the highest rate: one point, that rate.
  ran.clear();
  const validation::RateSearch easy = validation::search_poisson_rate(queue, 5.0, {2000, 100});
  REQUIRE(easy.best);
  CHECK(easy.points[*easy.best].rate == 5.0);
  CHECK(ran.size() == size_t{1});
  // Nothing within (TPOT over at every rate): the reason names the limits.
  const validation::RateSearch none = validation::search_poisson_rate(queue, 12.0, {2000, 10});
  CHECK(!none.best);
  CHECK(none.why_not.find("p99 TPOT <= 10 ms") != std::string::npos);
  // A rate that cannot run is beyond the limits; no start rate, no search.
  const validation::RateSearch broken = validation::search_poisson_rate(
      [](double) -> SweptPoint { throw InputError(SourceLocation{}, "", "KV does not fit"); }, 12.0,
      {2000, 100});
  CHECK(!broken.best);
  CHECK(broken.why_not.find("KV does not fit") != std::string::npos);
  CHECK(!validation::search_poisson_rate(queue, 0.0, {2000, 100}).best);
}

TEST_CASE("a sweep runs until the throughput flattens or TPOT stays over its limit") {
  // Throughput rises to concurrency 64 and falls after: the sweep stops two points later and
  // chooses 64.
  std::vector<int64_t> ran;
  auto curve = [&](int64_t c) {
    ran.push_back(c);
    const double tput = c <= 64 ? 10.0 * static_cast<double>(c) : 640.0 - static_cast<double>(c);
    return point(c, tput, 100, 5.0 * static_cast<double>(c));
  };
  const validation::SweepOutcome offline = validation::sweep_concurrency(curve, std::nullopt, 2048);
  REQUIRE(offline.best);
  CHECK(offline.points[*offline.best].concurrency == 64);
  CHECK(ran == std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256});
  // Server with TPOT <= 100 ms: 5 ms x c is over from 32 on; the sweep stops after 32 and 64
  // and chooses 16.
  ran.clear();
  const validation::SweepOutcome server =
      validation::sweep_concurrency(curve, LatencyLimits{2000, 100}, 2048);
  REQUIRE(server.best);
  CHECK(server.points[*server.best].concurrency == 16);
  CHECK(ran.back() == 64);
  // No point within the limits: the reason names them.
  const validation::SweepOutcome none =
      validation::sweep_concurrency(curve, LatencyLimits{2000, 1}, 2048);
  CHECK(!none.best);
  CHECK(none.why_not.find("p99 TPOT <= 1 ms") != std::string::npos);
  // A point that cannot run ends the sweep; the first one's error is the reason.
  const validation::SweepOutcome broken = validation::sweep_concurrency(
      [](int64_t) -> SweptPoint { throw InputError(SourceLocation{}, "", "KV does not fit"); },
      std::nullopt, 2048);
  CHECK(!broken.best);
  CHECK(broken.why_not.find("KV does not fit") != std::string::npos);
}

SweptPoint paced(int64_t c, double tput, double intvty) {
  SweptPoint p = point(c, tput, 100, 1000.0 / intvty);
  p.intvty = intvty;
  return p;
}

TEST_CASE("a throughput published at an interactivity reads the curve there") {
  CHECK(validation::notes_at_interactivity(
            "published 750,000 tok/s per MW at 90 tok/s/user (Oct)") == 90.0);
  CHECK(validation::notes_at_interactivity("AT 12.5 TOK/S/USER") == 12.5);
  CHECK(!validation::notes_at_interactivity("best-throughput config per GPU"));
  CHECK(!validation::notes_at_interactivity("reaches 78.9 tok/s/user"));
  // Interactivity 160 -> 40 between concurrency 4 and 8, throughput 100 -> 400: at 80 tok/s/user
  // the log-log line is halfway (ln 160 - ln 80 = ln 80 - ln 40), so sqrt(100 x 400) = 200.
  const std::vector<SweptPoint> curve{paced(1, 30, 300), paced(2, 60, 250), paced(4, 100, 160),
                                      paced(8, 400, 40)};
  std::string why;
  const auto at80 = validation::point_at_interactivity(curve, 80, &why);
  REQUIRE(at80);
  CHECK(at80->throughput == Approx(200.0));
  CHECK(at80->intvty == 80.0);
  CHECK(at80->concurrency == 4);
  CHECK(at80->p99_tpot_ms == Approx(1000.0 / 160 + 0.5 * (1000.0 / 40 - 1000.0 / 160)));
  // Exactly on a point: that point.
  const auto at160 = validation::point_at_interactivity(curve, 160, &why);
  REQUIRE(at160);
  CHECK(at160->throughput == Approx(100.0));
  CHECK(at160->concurrency == 4);
  // Never below the target: the best point (the target does not bind).
  const auto at10 = validation::point_at_interactivity(curve, 10, &why);
  REQUIRE(at10);
  CHECK(at10->throughput == 400.0);
  CHECK(at10->intvty == 40.0);
  // A point above the target with more throughput than the interpolation wins.
  const std::vector<SweptPoint> falling{paced(1, 500, 300), paced(2, 100, 200), paced(4, 120, 50)};
  const auto peak = validation::point_at_interactivity(falling, 100, &why);
  REQUIRE(peak);
  CHECK(peak->throughput == 500.0);
  CHECK(peak->concurrency == 1);
  // Slower than the target from the first point: none, and why.
  CHECK(!validation::point_at_interactivity(curve, 400, &why));
  CHECK(why == "no concurrency reaches 400 tok/s/user (at 1: 300)");
  // The sweep stops at the first point below the target.
  std::vector<int64_t> ran;
  const validation::SweepOutcome swept = validation::sweep_to_interactivity(
      [&](int64_t c) {
        ran.push_back(c);
        return paced(c, 50.0 * static_cast<double>(c), 320.0 / static_cast<double>(c));
      },
      90, 2048);
  CHECK(ran == std::vector<int64_t>{1, 2, 4});  // 320, 160, 80: 4 is below 90
  CHECK(!swept.best);
  REQUIRE(swept.points.size() == 3);
}

TEST_CASE("MLPerf rows are planned from their dataset's means, and the rest say why not") {
  const std::string notes_offline =
      "\"OUTPUT tok/s. MLPerf v5.1; scenario Offline; total 35,316.7 Tokens/s; mean output "
      "tokens/sample 292\"";
  const auto plans = plan(
      "133,Dell XE9680 (8xH200-SXM-141GB) [H200],8,Llama-2-70B,fp8,TensorRT,,,,"
      "output_tok_s_per_chip,4414.6,,,," +
      notes_offline + "\n" +
      "137,Nebius (8x B200-SXM-180GB) [B200],8,Llama-2-70B,fp4,TensorRT,,,,"
      "output_tok_s_per_chip,12701.4,,,,\"scenario Server; mean output tokens/sample 274\"\n"
      "153,(72x GB200-186GB_aarch64) [GB200],72,Llama-3.1-405B,fp4,TensorRT,,,,"
      "output_tok_s_per_chip,161.3,,,,\"scenario Interactive\"\n"
      "255,QuantaGrid 8xMI325X,8,Llama-2-70B,fp8,vLLM,,,,total_tok_s_per_chip,4241.0,,,,"
      "\"MLPerf v5.0 closed scenario Offline\"\n"
      "256,Azure ND GB200 v6,72,Llama-2-70B,FP4?,TRT-LLM,,,,output_tok_s_per_chip,12013.9,,,,"
      "\"UNVERIFIED\"\n"
      "301,NVIDIA B200 (8-GPU),8,Llama-3.1-70B,fp8,TensorRT,,,,output_tok_s_per_chip,100,,,,"
      "\"scenario Offline\"\n"
      "64,NVIDIA B200 (8-GPU) TRT,,Llama-3.3-70B-Instruct,FP8,TRT-LLM,8192,1024,,"
      "total_tok_s_per_chip,9420.6,,,,\"best-throughput config per GPU; peak tput only\"\n"
      "105,NVIDIA B200,,gpt-oss-120b,MXFP4,vLLM/TRT (v1 nightly),1024,8192,,total_tok_s_per_chip,"
      "6076,90,,,\"published 2,800,000 tok/s per all-in provisioned utility MW at 90 "
      "tok/s/user\"\n"
      "97,NVIDIA B200,,Qwen3.5-397B,FP8,vLLM,8192,1024,,total_tok_s_per_chip,8903,20,,,"
      "\"InferenceX Official Preview, Sept 2026; per chip\"\n");
  REQUIRE(plans.size() == 9);
  std::map<std::string, const validation::RowPlan*> by_id;
  int predicted = 0;
  for (const auto& p : plans) {
    by_id[p.id] = &p;
    predicted += p.skipped.empty() ? 1 : 0;
  }
  CHECK(predicted == 6);
  const validation::RowPlan& offline = *by_id.at("133");
  CHECK(offline.skipped.empty());
  CHECK(offline.scenario == RowScenario::kOffline);
  CHECK(!offline.limits);
  // The dataset's own samples (mlperf-lengths/llama-2-70b.csv): isl and osl are their means,
  // the outputs scaled to the row's own 292 tokens per sample.
  REQUIRE(offline.length_samples);
  CHECK(offline.length_samples->size() == 24576);
  CHECK(offline.isl == 222);
  CHECK(std::abs(offline.osl - 292) <= 1);
  CHECK(workloads::mean_output_tokens(*offline.length_samples) == Approx(292).epsilon(0.005));
  CHECK(offline.replica_chips == 1);
  const validation::RowPlan& server = *by_id.at("137");
  CHECK(server.scenario == RowScenario::kServer);
  REQUIRE(server.limits);
  CHECK(server.limits->tpot_ms == 200);
  // A dense model's FP4 row runs W4A4 (both GEMM operands in FP4), its FP8 row W8A8.
  CHECK(server.precision_override == "weights=mxfp4,activations=mxfp4,kv_cache=fp8");
  CHECK(offline.precision_override == "weights=fp8,activations=fp8,kv_cache=fp8");
  const validation::RowPlan& interactive = *by_id.at("153");
  CHECK(interactive.skipped.empty());  // 72 chips: one replica of them is simulated
  CHECK(interactive.scenario == RowScenario::kInteractive);
  CHECK(interactive.limits->ttft_ms == 4500);
  CHECK(interactive.replica_chips == 8);
  CHECK(interactive.row_chips == 72);
  CHECK(by_id.at("255")->skipped.find("MLPerf counts output tokens only") != std::string::npos);
  CHECK(by_id.at("256")->skipped == "no isl / osl and no MLPerf scenario in its notes");
  CHECK(by_id.at("301")->skipped.find("mlperf-benchmarks.csv") != std::string::npos);
  const validation::RowPlan& best = *by_id.at("64");
  CHECK(best.skipped.empty());
  CHECK(best.scenario == RowScenario::kBestThroughput);
  CHECK(best.concurrency == 0);
  // Throughput at 90 tok/s/user: the 90 is the row's condition, not an interactivity to check.
  const validation::RowPlan& at = *by_id.at("105");
  CHECK(at.skipped.empty());
  CHECK(at.scenario == RowScenario::kAtInteractivity);
  CHECK(at.target_intvty == 90.0);
  CHECK(!at.published_intvty);
  CHECK(at.concurrency == 0);
  // A throughput and an interactivity without a concurrency: the same reading, whatever the
  // notes say.
  const validation::RowPlan& pair = *by_id.at("97");
  CHECK(pair.skipped.empty());
  CHECK(pair.scenario == RowScenario::kAtInteractivity);
  CHECK(pair.target_intvty == 20.0);
  CHECK(!pair.published_intvty);
}
