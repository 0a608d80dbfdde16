// `scoville inferencex` and `scoville serve` as a user runs them: the metrics of the points are
// re-derived from the per-request rows of the HDF5 file, the closed loop obeys Little's law and
// never exceeds its concurrency, and a seed gives the same results.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <variant>

#include "sim/output/h5_reader.hpp"
#include "tests/e2e/test_support.hpp"

using scoville::test::read_file;
using scoville::test::run_scoville;
using scoville::test::source_dir;
using scoville::test::TempDir;

namespace {

const scoville::output::Table& table(const scoville::output::H5Document& doc,
                                     const std::string& path) {
  for (const auto& t : doc.tables) {
    if (t.path == path) return t;
  }
  FAIL("no table " << path);
  throw;
}

std::vector<double> column(const scoville::output::Table& t, const std::string& name) {
  for (const auto& c : t.columns) {
    if (c.name != name) continue;
    if (const auto* d = std::get_if<std::vector<double>>(&c.values)) return *d;
    if (const auto* i = std::get_if<std::vector<int64_t>>(&c.values)) {
      return std::vector<double>(i->begin(), i->end());
    }
  }
  FAIL("no column " << name << " in " << t.path);
  throw;
}

std::string column_units(const scoville::output::Table& t, const std::string& name) {
  for (const auto& c : t.columns) {
    if (c.name == name) return c.units;
  }
  FAIL("no column " << name << " in " << t.path);
  throw;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

const std::string kSweep =
    "inferencex --fidelity roofline --system h200 --chips 1 --model llama-3.1-8b --isl 256 --osl "
    "32 "
    "--concurrency 1,2,4,8,16 --quiet";

}  // namespace

TEST_CASE("inferencex: every point's metrics follow from its requests", "[cli][serving]") {
  TempDir dir("inferencex");
  const std::string out = dir.file("sweep.h5");
  const auto r = run_scoville(kSweep + " -o " + out);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("tput/chip"));
  CHECK_THAT(r.output, Catch::Contains("*"));  // the frontier is marked

  const auto doc = scoville::output::read_results_file(out);
  const auto& points = table(doc, "/points");
  const auto& requests = table(doc, "/requests");
  const auto conc = column(points, "concurrency");
  const auto tput = column(points, "tput_per_chip");
  const auto intvty = column(points, "intvty");
  const auto chips = column(points, "chips");
  const auto ttft_med = column(points, "median_ttft_s");  // SI in the file
  const auto point = column(requests, "point");
  const auto sent = column(requests, "sent_s");
  const auto finished = column(requests, "finished_s");
  const auto in = column(requests, "input_tokens");
  const auto outk = column(requests, "output_tokens");
  const auto ttft = column(requests, "ttft_s");
  const auto tpot = column(requests, "tpot_s");
  REQUIRE(conc.size() == 5);
  for (size_t p = 0; p < conc.size(); ++p) {
    INFO("point " << p << ", concurrency " << conc[p]);
    std::vector<std::pair<double, int>> events;
    double start = 1e300, end = 0, tokens = 0, sum_e2el = 0;
    std::vector<double> tpots, ttfts;
    int64_t n = 0;
    for (size_t i = 0; i < point.size(); ++i) {
      if (point[i] != static_cast<double>(p)) continue;
      ++n;
      start = std::min(start, sent[i]);
      end = std::max(end, finished[i]);
      tokens += in[i] + outk[i];
      sum_e2el += finished[i] - sent[i];
      ttfts.push_back(ttft[i] * 1e3);
      if (outk[i] > 1) tpots.push_back(tpot[i] * 1e3);
      events.push_back({sent[i], +1});
      events.push_back({finished[i], -1});
    }
    CHECK(n == 10 * static_cast<int64_t>(conc[p]));  // InferenceX: 10 x N requests
    // The closed loop never has more than N requests in flight, and has exactly N from the
    // start until its last request is sent (each client sends as soon as its last one ends).
    std::sort(events.begin(), events.end());
    const double last_send = [&] {
      double t = 0;
      for (const auto& e : events) t = e.second > 0 ? std::max(t, e.first) : t;
      return t;
    }();
    int64_t in_flight = 0, most = 0;
    double area = 0, previous = start;
    for (size_t k = 0; k < events.size(); ++k) {
      area += static_cast<double>(in_flight) * (events[k].first - previous);
      previous = events[k].first;
      in_flight += events[k].second;
      most = std::max(most, in_flight);
      const bool instant_done = k + 1 < events.size() && events[k + 1].first == events[k].first;
      if (!instant_done && events[k].first < last_send) CHECK(in_flight == conc[p]);
    }
    CHECK(most == static_cast<int64_t>(conc[p]));
    // Little's law: the time-average number in flight = throughput (req/s) x mean latency.
    const double duration = end - start;
    const double mean_e2el = sum_e2el / static_cast<double>(n);
    const double littles_n = static_cast<double>(n) / duration * mean_e2el;
    CHECK(std::abs(littles_n / (area / duration) - 1.0) <= 0.02);
    // Against N itself only the drain after the last send (at most one latency) is missing.
    CHECK(littles_n <= conc[p] * (1.0 + 1e-9));
    CHECK(1.0 - littles_n / conc[p] <= (end - last_send) / duration + 1e-9);
    CHECK(column(points, "littles_law_n")[p] == Approx(littles_n).epsilon(1e-9));
    CHECK(column(points, "max_in_flight")[p] == static_cast<double>(most));
    // The summary metrics, re-derived from the rows.
    CHECK(tput[p] == Approx(tokens / duration / chips[p]).epsilon(1e-9));
    CHECK(intvty[p] == Approx(1000.0 / median(tpots)).epsilon(1e-9));
    CHECK(ttft_med[p] * 1e3 == Approx(median(ttfts)).epsilon(1e-9));
    CHECK(column_units(points, "median_ttft_s") == "s");
    // Units as the metric's producer declares them, not guessed from the name: a token count
    // is not a rate because its name contains "tput" or "output".
    CHECK(column_units(points, "total_output_tokens") == "1");
    CHECK(column_units(points, "output_throughput") == "1/s");
    CHECK(column_units(points, "tput_per_kw_sim") == "1/(s*kW)");
    CHECK(column_units(points, "concurrency") == "1");
  }
  // More clients: more throughput per chip, less interactivity (a memory-bound decode).
  for (size_t p = 1; p < conc.size(); ++p) {
    CHECK(tput[p] > tput[p - 1]);
    CHECK(intvty[p] < intvty[p - 1]);
  }
}

TEST_CASE("inferencex: with 50 x N requests, N = throughput x mean latency within 2%",
          "[cli][serving]") {
  // The drain after the last send weighs 1/50 of the run: Little's law against N itself.
  const auto r = run_scoville(
      "inferencex --fidelity roofline --system h200 --chips 1 --model llama-3.1-8b --isl 256 --osl "
      "32 "
      "--concurrency 1,4,16 --prompts-per-client 50 --json");
  REQUIRE(r.exit_code == 0);
  size_t at = 0;
  int checked = 0;
  while ((at = r.output.find("\"concurrency\": ", at)) != std::string::npos) {
    const double n = std::stod(r.output.substr(at + 15));
    const size_t l = r.output.find("\"littles_law_n\": ", at);
    REQUIRE(l != std::string::npos);
    const double littles = std::stod(r.output.substr(l + 17));
    INFO("concurrency " << n << ", throughput x mean E2EL " << littles);
    CHECK(std::abs(littles / n - 1.0) <= 0.02);
    ++checked;
    at = l;
  }
  CHECK(checked == 3);
}

TEST_CASE("inferencex: a seed gives identical results, another seed other ones", "[cli][serving]") {
  const std::string args =
      "inferencex --fidelity roofline --system h200 --chips 1 --model llama-3.1-8b --isl 128 "
      "--osl 16 --concurrency 2,4 --json";
  const auto a = run_scoville(args + " --seed 3");
  const auto b = run_scoville(args + " --seed 3");
  const auto c = run_scoville(args + " --seed 4");
  REQUIRE(a.exit_code == 0);
  CHECK_THAT(a.output, Catch::StartsWith("{"));
  CHECK_THAT(a.output, Catch::Contains("\"intvty\""));
  CHECK(a.output == b.output);
  CHECK(a.output != c.output);
}

TEST_CASE("inferencex: a system file gives the network, with the chip named", "[cli][serving]") {
  const auto r = run_scoville(
      "inferencex --fidelity roofline --system gb200-nvl72 --chip h200 --model llama-3.1-8b --tp 2 "
      "--isl 128 "
      "--osl 8 --concurrency 2");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("gb200-nvl72"));
  // Without --chip, the system file's own chip (gb200).
  const auto own = run_scoville(
      "inferencex --fidelity roofline --system gb200-nvl72 --model llama-3.1-8b --tp 2 --isl 128 "
      "--osl 8 "
      "--concurrency 2 --json");
  INFO(own.output);
  CHECK(own.exit_code == 0);
  CHECK(own.output != r.output);
  // A network-only system file needs --chip.
  TempDir dir("network-only");
  std::string yaml = read_file(source_dir() + "/arch/systems/gb200-nvl72.yaml");
  const size_t chip_line = yaml.find("  chip: gb200");
  yaml.erase(chip_line, yaml.find('\n', chip_line) + 1 - chip_line);
  const std::string network_only = dir.write("network-only.yaml", yaml);
  const auto missing = run_scoville("inferencex --fidelity roofline --system " + network_only +
                                    " --model llama-3.1-8b --isl 128 --osl 8");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Catch::Contains("--chip"));
  const auto unknown = run_scoville(
      "inferencex --fidelity roofline --system h200 --model llama-9b --isl 128 --osl 8 "
      "--concurrency 1");
  CHECK(unknown.exit_code == 2);
  const auto too_big = run_scoville(
      "inferencex --fidelity roofline --system h200 --chips 1 --model llama-3.1-405b --isl 128 "
      "--osl 8 "
      "--concurrency 1");
  CHECK(too_big.exit_code == 2);
}

TEST_CASE("inferencex: --search keeps the Pareto frontier of the feasible mappings",
          "[cli][serving]") {
  const auto r = run_scoville(
      "inferencex --fidelity roofline --system h200 --chips 2 --model llama-3.1-8b --isl 128 --osl "
      "8 "
      "--concurrency 1,8 --search --prompts-per-client 2 --json");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // tp1, tp2, tp2 with attention DP and the 1:1 prefill:decode split, at two concurrencies.
  CHECK_THAT(r.output, Catch::Contains("\"points_tried\": 8"));
  CHECK_THAT(r.output, Catch::Contains("\"pareto\": 1"));
  CHECK(r.output.find("\"pareto\": 0") == std::string::npos);  // only the frontier is shown
}

TEST_CASE("inferencex: --search tries prefill:decode pool splits and keeps the frontier",
          "[cli][serving]") {
  TempDir dir("search_pools");
  const auto r = run_scoville(
      "inferencex --fidelity roofline --system h200 --chips 8 --model llama-3.1-8b --isl 512 --osl "
      "16 "
      "--concurrency 1,32 --search --prompts-per-client 2 --quiet -o " +
      dir.file("s.h5"));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto doc = scoville::output::read_results_file(dir.file("s.h5"));
  const auto& points = table(doc, "/points");
  std::vector<std::string> mappings;
  for (const auto& c : points.columns) {
    if (c.name != "mapping") continue;
    if (const auto* v = std::get_if<std::vector<std::string>>(&c.values)) mappings = *v;
  }
  // 8 chips: decode pools of 4 (prefill 4, 2, 1) and 2 (prefill 2, 1), each with attn_dp 1
  // and D, at both concurrencies.
  std::set<std::string> splits;
  for (const std::string& m : mappings) {
    if (m.rfind("prefill:", 0) == 0) splits.insert(m);
  }
  CHECK(splits.size() == 10);
  CHECK(splits.count("prefill:tp2+decode:tp4-dpa4") == 1);
  // The pareto flag is InferenceX's rule, re-derived: not beaten on both axes by another point.
  const auto tput = column(points, "tput_per_chip");
  const auto intvty = column(points, "intvty");
  const auto pareto = column(points, "pareto");
  const auto chips = column(points, "chips");
  REQUIRE(tput.size() == mappings.size());
  for (size_t i = 0; i < tput.size(); ++i) {
    bool beaten = false, twin = false;
    for (size_t j = 0; j < tput.size(); ++j) {
      twin = twin || (j != i && tput[j] == tput[i] && intvty[j] == intvty[i]);
      beaten = beaten || (j != i && tput[j] >= tput[i] && intvty[j] >= intvty[i] &&
                          (tput[j] > tput[i] || intvty[j] > intvty[i]));
    }
    INFO(mappings[i] << ": " << tput[i] << " tok/s/chip, " << intvty[i] << " tok/s/user");
    if (!twin) CHECK(pareto[i] == (beaten ? 0.0 : 1.0));  // of two equal points one is marked
    // A split's chips are its two pools', not the 8 available.
    if (mappings[i] == "prefill:tp1+decode:tp2") CHECK(chips[i] == 3.0);
  }
}

TEST_CASE("inferencex: --fidelity cycle prices on the system engine, near the roofline",
          "[cli][serving]") {
  TempDir dir("fidelity");
  const std::string base =
      "inferencex --system h200-hgx8 --model llama-3.1-8b --tp 8 --isl 128 --osl 8 "
      "--concurrency 1,2 --prompts-per-client 2 --quiet";
  const auto cycle = run_scoville(base + " --fidelity cycle -o " + dir.file("cycle.h5"));
  INFO(cycle.output);
  REQUIRE(cycle.exit_code == 0);
  CHECK_THAT(cycle.output, Catch::Contains("cycle fidelity"));
  const auto roofline = run_scoville(base + " --fidelity roofline -o " + dir.file("roofline.h5"));
  INFO(roofline.output);
  REQUIRE(roofline.exit_code == 0);
  CHECK_THAT(roofline.output, Catch::Contains("roofline fidelity"));

  const auto cycle_doc = scoville::output::read_results_file(dir.file("cycle.h5"));
  const auto roofline_doc = scoville::output::read_results_file(dir.file("roofline.h5"));
  CHECK(scoville::output::attribute_text(cycle_doc, "fidelity") == "cycle");
  CHECK(scoville::output::attribute_text(roofline_doc, "fidelity") == "roofline");
  const auto cycle_tput = column(table(cycle_doc, "/points"), "tput_per_chip");
  const auto roofline_tput = column(table(roofline_doc, "/points"), "tput_per_chip");
  REQUIRE(cycle_tput.size() == 2);
  REQUIRE(roofline_tput.size() == 2);
  for (size_t i = 0; i < cycle_tput.size(); ++i) {
    INFO("point " << i << ": cycle " << cycle_tput[i] << ", roofline " << roofline_tput[i]);
    // Two models of the same hardware: the cycle level adds what the roofline ignores, but
    // stays within a factor of 3 of it.
    CHECK(cycle_tput[i] > roofline_tput[i] / 3.0);
    CHECK(cycle_tput[i] < roofline_tput[i] * 3.0);
  }

  // Refused: a chip without a system file, --search, a disaggregated mapping, an unknown level.
  const std::string flags = " --model llama-3.1-8b --isl 128 --osl 8 --concurrency 1 ";
  const auto chip_only =
      run_scoville("inferencex --system h200 --chips 8" + flags + "--fidelity cycle");
  CHECK(chip_only.exit_code == 2);
  CHECK_THAT(chip_only.output, Catch::Contains("system file"));
  const auto search =
      run_scoville("inferencex --system h200-hgx8" + flags + "--search --fidelity cycle");
  CHECK(search.exit_code == 2);
  CHECK_THAT(search.output, Catch::Contains("--search"));
  const std::string disagg = dir.write("disagg.yaml",
                                       "mapping:\n"
                                       "  prefill: {chips: 4, tp: 4}\n"
                                       "  decode: {chips: 4, tp: 4}\n");
  const auto split = run_scoville("inferencex --system h200-hgx8" + flags + "--mapping " + disagg +
                                  " --fidelity cycle");
  CHECK(split.exit_code == 2);
  CHECK_THAT(split.output, Catch::Contains("disaggregated"));
  const auto unknown = run_scoville("inferencex --system h200-hgx8" + flags + "--fidelity exact");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.output, Catch::Contains("cycle, op-table or roofline"));
}

TEST_CASE("serve: a scenario file runs, writes its requests, and bad ones are located",
          "[cli][serving]") {
  TempDir dir("serve");
  const std::string out = dir.file("run.h5");
  const auto r = run_scoville("serve --fidelity roofline --scenario " + source_dir() +
                              "/workloads/scenarios/llama-3.1-8b-trace-mtp.yaml -o " + out);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("median_tpot_ms"));
  const auto doc = scoville::output::read_results_file(out);
  CHECK(column(table(doc, "/requests"), "id").size() == 5);  // the sample trace's requests
  CHECK(column(table(doc, "/points"), "intvty").size() == 1);

  const std::string bad = dir.write("bad.yaml", R"(scenario:
  system: {chip: h200}
  model: llama-3.1-8b
  mapping: {default: {chips: 1}}
  requests: {pattern: poisson, isl: 10, osl: 10, rate: -1, num_prompts: 3}
)");
  const auto e = run_scoville("serve --fidelity roofline --scenario " + bad);
  CHECK(e.exit_code == 2);
  CHECK_THAT(e.output, Catch::Contains("bad.yaml:5"));
  CHECK_THAT(e.output, Catch::Contains("rate"));
}

TEST_CASE("validate: predicts the rows in scope and says why it skips the others",
          "[cli][serving]") {
  TempDir dir("validate");
  const std::string csv = dir.write(
      "m.csv",
      "id,source,system,chips,model,precision,framework,isl,osl,concurrency,throughput_metric,"
      "throughput,interactivity_tok_s_user,ttft_ms,tpot_ms,e2e_s,notes\n"
      "1,x,NVIDIA H200 (8-GPU),,Llama-3.3-70B-Instruct,FP8,vLLM,128,8,2,total_tok_s_per_chip,"
      "100.0,50.0,,,,\"a note, with a comma\"\n"
      "2,x,NVIDIA B200 (8-GPU),,gpt-oss-120b,FP4,TRT,128,8,2,total_tok_s_per_chip,100.0,,,,,\n"
      "3,x,AWS Trainium2 "
      "(16-chip),,gpt-oss-120b,FP4,vLLM,128,8,2,total_tok_s_per_chip,100.0,,,,,\n");
  const auto r = run_scoville("validate --fidelity roofline --measurements " + csv +
                              " --prompts-per-client 2");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // H200 and B200 rows are predicted (arch/systems names both); no system file names a Trainium.
  CHECK_THAT(r.output, Catch::Contains("2 rows predicted, 1 skipped"));
  CHECK_THAT(r.output, Catch::Contains("system not named by any alias in arch/systems"));
  // The JSON's error is the signed difference from the published figure.
  const auto j = run_scoville("validate --fidelity roofline --json --measurements " + csv +
                              " --prompts-per-client 2");
  REQUIRE(j.exit_code == 0);
  const size_t p = j.output.find("\"predicted\": ");
  const size_t e = j.output.find("\"error_pct\": ");
  REQUIRE(p != std::string::npos);
  REQUIRE(e != std::string::npos);
  const double predicted = std::stod(j.output.substr(p + 13));
  const double error = std::stod(j.output.substr(e + 13));
  CHECK(error == Approx((predicted - 100.0) / 100.0 * 100.0).epsilon(1e-9));
  const auto missing =
      run_scoville("validate --fidelity roofline --measurements " + dir.file("none.csv"));
  CHECK(missing.exit_code == 2);
}

TEST_CASE("inferencex: top-p requests on vLLM pay its vocabulary sort and greedy ones do not",
          "[cli][serving]") {
  TempDir dir("inferencex_sampling");
  const std::string base =
      "inferencex --fidelity roofline --system h200 --chips 1 --model llama-3.1-8b --isl 256 "
      "--osl 32 --concurrency 64 --prompts-per-client 2 --quiet";
  auto tput = [&](const std::string& flags, const std::string& name) {
    const std::string out = dir.file(name + ".h5");
    const auto r = run_scoville(base + flags + " -o " + out);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const bool top_p = flags.find("top-p") != std::string::npos;
    // The table's header says so; the file records it either way.
    CHECK((r.output.find(", top-p sampling") != std::string::npos) == top_p);
    const scoville::output::H5Document doc = scoville::output::read_results_file(out);
    CHECK(scoville::output::attribute_text(doc, "sampling") == (top_p ? "top-p" : "greedy"));
    return column(table(doc, "/points"), "tput_per_chip").at(0);
  };
  // 64 x 128,256 logits x 208 bytes a step (1.71 GB, 0.36 ms at 4.8 TB/s) on vLLM's steps.
  const double greedy = tput(" --software vllm", "greedy");
  const double top_p = tput(" --software vllm --sampling top-p", "top_p");
  CHECK(top_p < greedy);
  CHECK(top_p > 0.8 * greedy);
  // TensorRT-LLM draws top-p in one pass: nothing changes.
  CHECK(tput(" --software tensorrt-llm --sampling top-p", "trt_top_p") ==
        tput(" --software tensorrt-llm", "trt_greedy"));
  const auto json = run_scoville(base + " --software vllm --sampling top-p --json");
  REQUIRE(json.exit_code == 0);
  CHECK_THAT(json.output, Catch::Contains("\"sampling\": \"top-p\""));
  const auto bad = run_scoville(base + " --sampling nucleus");
  CHECK(bad.exit_code != 0);
  CHECK_THAT(bad.output, Catch::Contains("--sampling expects greedy or top-p, got 'nucleus'"));
}

TEST_CASE("serve: a top-p scenario on vLLM pays the vocabulary sort", "[cli][serving]") {
  TempDir dir("serve_sampling");
  auto tput = [&](const std::string& sampling) {
    const std::string file = dir.write("s_" + sampling + ".yaml", R"(scenario:
  system: {chip: h200}
  model: llama-3.1-8b
  mapping: {default: {chips: 1}}
  requests: {pattern: closed_loop, isl: 256, osl: 32, concurrency: 64, num_prompts: 128, sampling: )" +
                                                                      sampling + "}\n");
    const std::string out = dir.file(sampling + ".h5");
    const auto r =
        run_scoville("serve --fidelity roofline --software vllm --scenario " + file + " -o " + out);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    // The header and the output record what the requests asked for, as inferencex's do.
    CHECK((r.output.find(", top-p sampling") != std::string::npos) == (sampling == "top-p"));
    const scoville::output::H5Document doc = scoville::output::read_results_file(out);
    CHECK(scoville::output::attribute_text(doc, "sampling") == sampling);
    return column(table(doc, "/points"), "tput_per_chip").at(0);
  };
  const double greedy = tput("greedy");
  const double top_p = tput("top-p");
  CHECK(top_p < greedy);
  CHECK(top_p > 0.8 * greedy);
}
