// Studies and sweeps on multi-chip systems and over serving scenarios, as a user runs them: a
// study with system: runs exactly as `run --system` with the same flags (same results file);
// a sweep over system x kv_placement writes one system results file per point and indexes their
// key metrics; a sweep over a scenario runs `serve` per point; both give bit-identical point
// files whatever -j ran them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "sim/output/h5_reader.hpp"
#include "tests/e2e/test_support.hpp"

using scoville::test::run_scoville;
using scoville::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kEnv = "SOURCE_DATE_EPOCH=0";

// Every table of a results file as text (provenance attributes differ by command line).
std::string tables_of(const scoville::output::H5Document& doc) {
  std::string out;
  for (const auto& t : doc.tables) {
    out += t.path + "\n";
    for (const auto& c : t.columns) {
      out += c.name + "[" + c.units + "]:";
      std::visit(
          [&](const auto& values) {
            for (const auto& v : values) {
              std::ostringstream s;
              s.precision(17);
              s << v << ",";
              out += s.str();
            }
          },
          c.values);
      out += "\n";
    }
  }
  return out;
}

std::string tables_of(const std::string& path) {
  return tables_of(scoville::output::read_results_file(path));
}

const scoville::output::Table& table(const scoville::output::H5Document& doc,
                                     const std::string& path) {
  for (const auto& t : doc.tables) {
    if (t.path == path) return t;
  }
  FAIL("no table " << path);
  throw 0;
}

template <typename T>
const std::vector<T>& column(const scoville::output::Table& t, const std::string& name) {
  for (const auto& c : t.columns) {
    if (c.name == name) return std::get<std::vector<T>>(c.values);
  }
  FAIL("no column " << name << " in " << t.path);
  throw 0;
}

std::vector<std::string> point_files(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(fs::path(dir) / "points")) {
    if (e.path().extension() == ".h5") files.push_back(e.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

const std::string kShape = " --model llama-3.1-8b --batch 2 --isl 64 --osl 4";

}  // namespace

TEST_CASE("study with system: runs exactly as run --system with the same flags",
          "[sweep][system]") {
  TempDir dir("study-system");
  const std::string study = dir.write(
      "s.yaml",
      "study:\n  name: s\n  system: h200-hgx8\n  model: llama-3.1-8b\n  batch: 2\n  isl: 64\n"
      "  osl: 4\n  kv_placement: striped\n  mapping: {tp: 4}\n  reuse_repeated_ops: true\n");
  const auto a = run_scoville("run --study " + study + " --json -o " + dir.file("a.h5"), kEnv);
  INFO(a.output);
  REQUIRE(a.exit_code == 0);
  const auto b = run_scoville("run --system h200-hgx8" + kShape +
                                  " --kv-placement striped --tp 4 --reuse-repeated-ops --json -o " +
                                  dir.file("b.h5"),
                              kEnv);
  INFO(b.output);
  REQUIRE(b.exit_code == 0);
  CHECK(a.output == b.output);
  const auto doc = scoville::output::read_results_file(dir.file("a.h5"));
  CHECK(tables_of(doc) == tables_of(dir.file("b.h5")));
  CHECK(scoville::output::attribute_text(doc, "file_kind") == "system");
  CHECK(scoville::output::attribute_text(doc, "kv_placement") == "striped");

  // /summary: one row, consistent with /phases; /components: 7 parts per phase whose energies
  // add up to the phase energy.
  const auto& summary = table(doc, "/summary");
  CHECK(column<std::string>(summary, "system") == std::vector<std::string>{"h200-hgx8"});
  CHECK(column<int64_t>(summary, "tp") == std::vector<int64_t>{4});
  CHECK(column<int64_t>(summary, "chips") == std::vector<int64_t>{4});
  const auto& phases = table(doc, "/phases");
  const auto& names = column<std::string>(phases, "phase");
  const auto& times = column<double>(phases, "time_s");
  const auto& energies = column<double>(phases, "energy_J");
  REQUIRE(names.size() == 2);
  const auto& tokens = column<int64_t>(phases, "tokens");
  double decode_time = 0, decode_tokens = 0, energy = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == "decode") {
      decode_time = times[i];
      decode_tokens = static_cast<double>(tokens[i]);
    }
    energy += energies[i];
  }
  CHECK(decode_tokens > 0);
  CHECK(column<double>(summary, "decode_time_s")[0] == decode_time);
  CHECK(column<double>(summary, "energy_J")[0] == Approx(energy).epsilon(1e-12));
  CHECK(column<double>(summary, "decode_tokens_per_s")[0] ==
        Approx(decode_tokens / decode_time).epsilon(1e-12));
  CHECK(column<double>(summary, "decode_tokens_per_s_per_chip")[0] ==
        Approx(decode_tokens / decode_time / 4).epsilon(1e-12));
  const auto& components = table(doc, "/components");
  const auto& part_phase = column<std::string>(components, "phase");
  const auto& part_energy = column<double>(components, "energy_J");
  REQUIRE(part_phase.size() == 2 * 7);
  double parts = 0;
  for (double e : part_energy) {
    if (!std::isnan(e)) parts += e;
  }
  CHECK(parts == Approx(energy).epsilon(1e-9));
  bool resolved = false;
  for (const auto& s : doc.strings) {
    if (s.path == "/config/resolved_yaml") {
      resolved = true;
      CHECK_THAT(s.text, Catch::Contains("kv_placement: striped"));
      CHECK_THAT(s.text, Catch::Contains("tp: 4"));
      CHECK_THAT(s.text, Catch::Contains("ep: 1"));
    }
  }
  CHECK(resolved);
}

TEST_CASE("a study whose system keys are bad or conflicting is refused with its location",
          "[sweep][system]") {
  TempDir dir("study-system-bad");
  const std::string both =
      dir.write("both.yaml",
                "study:\n  system: h200-hgx8\n  chips: [h200]\n  model: llama-3.1-8b\n  batch: 1\n"
                "  isl: 8\n  osl: 2\n");
  const auto r = run_scoville("run --study " + both);
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains(both + ":3"));
  CHECK_THAT(r.output, Catch::Contains("study.chips"));
  // A mapping larger than the system: named by its study key, not by a flag.
  const std::string big = dir.write(
      "big.yaml",
      "study:\n  system: h200-hgx8\n  model: llama-3.1-8b\n  batch: 1\n  isl: 8\n  osl: 2\n"
      "  mapping: {tp: 16}\n");
  const auto b = run_scoville("run --study " + big);
  INFO(b.output);
  CHECK(b.exit_code == 2);
  CHECK_THAT(b.output, Catch::Contains("study.mapping.tp"));
  CHECK_THAT(b.output, Catch::Contains(big + ":7"));
  // System flags beside a system study are refused (the study holds them).
  CHECK(run_scoville("run --study " + big + " --tp 2").exit_code == 2);
}

TEST_CASE("a sweep over system x kv_placement indexes each point's system metrics, same for any -j",
          "[sweep][system]") {
  TempDir dir("sweep-system");
  const std::string file = dir.write(
      "s.yaml",
      "sweep:\n  name: sys\n"
      "  study: {system: h200-hgx8, model: llama-3.1-8b, batch: 2, isl: 64, osl: 4, seed: 1,"
      " mapping: {tp: 2}, reuse_repeated_ops: true}\n"
      "  axes:\n"
      "    - {key: study.system, values: [h200-hgx8, b200-hgx8]}\n"
      "    - {key: study.kv_placement, values: [local, striped]}\n");
  const auto one = run_scoville("sweep " + file + " -j 1 --quiet -o " + dir.file("a"), kEnv);
  INFO(one.output);
  REQUIRE(one.exit_code == 0);
  const auto two = run_scoville("sweep " + file + " -j 2 --quiet -o " + dir.file("b"), kEnv);
  INFO(two.output);
  REQUIRE(two.exit_code == 0);
  const auto names = point_files(dir.file("a"));
  REQUIRE(names.size() == 4);
  CHECK(point_files(dir.file("b")) == names);
  for (const std::string& name : names) {
    const auto doc = scoville::output::read_results_file(dir.file("a/points/" + name));
    CHECK(scoville::output::attribute_text(doc, "file_kind") == "system");
    CHECK(tables_of(dir.file("b/points/" + name)) == tables_of(doc));
  }
  const auto index = scoville::output::read_results_file(dir.file("a/sweep.h5"));
  CHECK(tables_of(dir.file("b/sweep.h5")) == tables_of(index));
  CHECK(scoville::output::attribute_text(index, "point_kind") == "study");
  const auto& points = table(index, "/points");
  CHECK(column<std::string>(points, "status") == std::vector<std::string>(4, "done"));
  const auto& results = table(index, "/results");
  // One row per point, in point order (last axis fastest), with the system's key metrics.
  CHECK(column<std::string>(results, "system") ==
        std::vector<std::string>{"h200-hgx8", "h200-hgx8", "b200-hgx8", "b200-hgx8"});
  CHECK(column<std::string>(results, "kv_placement") ==
        std::vector<std::string>{"local", "striped", "local", "striped"});
  CHECK(column<std::string>(results, "chip") ==
        std::vector<std::string>{"h200", "h200", "b200", "b200"});
  for (const char* metric : {"decode_tokens_per_s", "energy_per_output_token_J", "request_time_s",
                             "kv_transfer_bytes"}) {
    const auto& values = column<double>(results, metric);
    REQUIRE(values.size() == 4);
    for (double v : values) CHECK(std::isfinite(v));
  }
  // Striped KV reads come from the TP peer over the local network; local ones do not.
  const auto& kv = column<double>(results, "kv_transfer_bytes");
  CHECK(kv[0] == 0);
  CHECK(kv[1] > 0);
}

TEST_CASE("a sweep over a serving scenario runs serve per point and indexes its metrics",
          "[sweep][serving]") {
  TempDir dir("sweep-scenario");
  const std::string file = dir.write(
      "s.yaml",
      "sweep:\n  name: serve\n"
      "  scenario:\n"
      "    system: {chip: h200, chips: 2}\n"
      "    model: llama-3.1-8b\n"
      "    mapping: {default: {chips: 1, tp: 1}}\n"
      "    requests: {pattern: closed_loop, isl: 64, osl: 8, concurrency: 1, num_prompts: 8}\n"
      "    seed: 3\n"
      "  axes:\n"
      "    - {key: scenario.requests.concurrency, values: [1, 4]}\n"
      "    - {key: scenario.mapping.default, values: [{chips: 1, tp: 1}, {chips: 2, tp: 2}]}\n");
  const auto one = run_scoville("sweep " + file + " -j 1 --quiet -o " + dir.file("a"), kEnv);
  INFO(one.output);
  REQUIRE(one.exit_code == 0);
  const auto two = run_scoville("sweep " + file + " -j 3 --quiet -o " + dir.file("b"), kEnv);
  INFO(two.output);
  REQUIRE(two.exit_code == 0);
  const auto names = point_files(dir.file("a"));
  REQUIRE(names.size() == 4);
  for (const std::string& name : names) {
    CHECK(tables_of(dir.file("b/points/" + name)) == tables_of(dir.file("a/points/" + name)));
  }
  const auto index = scoville::output::read_results_file(dir.file("a/sweep.h5"));
  CHECK(scoville::output::attribute_text(index, "point_kind") == "scenario");
  const auto& results = table(index, "/results");
  CHECK(column<double>(results, "concurrency") == std::vector<double>{1, 1, 4, 4});
  CHECK(column<double>(results, "tp") == std::vector<double>{1, 2, 1, 2});
  for (const char* metric : {"tput_per_chip", "intvty", "median_ttft_s", "median_tpot_s"}) {
    const auto& values = column<double>(results, metric);
    REQUIRE(values.size() == 4);
    for (double v : values) CHECK(v > 0);
  }
  // More requests in flight on the same mapping: more throughput per chip.
  const auto& tput = column<double>(results, "tput_per_chip");
  CHECK(tput[2] > tput[0]);
  // merge rebuilds the same index from the directory's self-contained sweep.yaml.
  REQUIRE(run_scoville("merge " + dir.file("a"), kEnv).exit_code == 0);
  CHECK(tables_of(dir.file("a/sweep.h5")) == tables_of(index));
}

TEST_CASE("a scenario file as a sweep's base keeps its relative trace and merges on its own",
          "[sweep][serving]") {
  TempDir dir("sweep-scenario-base");
  const std::string file = dir.write(
      "s.yaml", "sweep:\n  name: trace\n  base: " + scoville::test::source_dir() +
                    "/workloads/scenarios/llama-3.1-8b-trace-mtp.yaml\n"
                    "  axes:\n    - {key: scenario.scheduler.max_num_seqs, values: [1, 64]}\n");
  const auto r = run_scoville("sweep " + file + " --quiet -o " + dir.file("out"), kEnv);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(point_files(dir.file("out")).size() == 2);
  // The directory's sweep.yaml holds the scenario inline (its trace path made absolute), so
  // merge needs neither the sweep file nor the scenario file.
  const std::string copy = scoville::test::read_file(dir.file("out/sweep.yaml"));
  CHECK_THAT(copy, Catch::Contains("scenario:"));
  CHECK_THAT(copy, Catch::Contains(scoville::test::source_dir() + "/workloads/requests/"));
  const auto before = tables_of(dir.file("out/sweep.h5"));
  const auto merged = run_scoville("merge " + dir.file("out"), kEnv);
  INFO(merged.output);
  REQUIRE(merged.exit_code == 0);
  CHECK(tables_of(dir.file("out/sweep.h5")) == before);
  // Both points replayed the whole trace.
  const auto index = scoville::output::read_results_file(dir.file("out/sweep.h5"));
  const auto& results = table(index, "/results");
  const auto& completed = column<double>(results, "completed");
  REQUIRE(completed.size() == 2);
  CHECK(completed[0] > 0);
  CHECK(completed[1] == completed[0]);
  for (double v : column<double>(results, "tput_per_chip")) CHECK(v > 0);
}
