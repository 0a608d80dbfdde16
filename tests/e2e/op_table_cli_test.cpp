// The op-table fidelity as a user runs it: `inferencex --fidelity op-table` prices on the chip
// model (so a change the roofline cannot see, such as SRAM size, moves the curve), answers the
// same from a cold and a warm persistent op cache and without one, records its fidelity, and
// `scoville op-cache` shows and clears the cache.
#include <catch2/catch.hpp>

#include <string>
#include <variant>
#include <vector>

#include "sim/output/h5_reader.hpp"
#include "tests/e2e/test_support.hpp"

using scoville::test::read_file;
using scoville::test::run_scoville;
using scoville::test::source_dir;
using scoville::test::TempDir;

namespace {

std::vector<double> points_column(const std::string& file, const std::string& name) {
  const scoville::output::H5Document doc = scoville::output::read_results_file(file);
  for (const auto& t : doc.tables) {
    if (t.path != "/points") continue;
    for (const auto& c : t.columns) {
      if (c.name != name) continue;
      if (const auto* d = std::get_if<std::vector<double>>(&c.values)) return *d;
    }
  }
  FAIL("no /points column " << name << " in " << file);
  throw;
}

const std::string kPoint =
    "inferencex --chips 1 --tp 1 --model llama-3.1-8b --isl 512 --osl 16 --concurrency 1,4 "
    "--prompts-per-client 2 --quiet";

}  // namespace

TEST_CASE("op-table fidelity: warm, cold and bypassed op caches give identical points",
          "[cli][op_table]") {
  TempDir dir("op-table-cache");
  const std::string env = "SCOVILLE_CACHE_DIR=" + dir.file("cache");
  const std::string run = kPoint + " --system h200 --fidelity op-table";
  const auto cold = run_scoville(run + " -o " + dir.file("cold.h5"), env);
  INFO(cold.output);
  REQUIRE(cold.exit_code == 0);
  CHECK_THAT(cold.output, Catch::Contains("op-table fidelity"));
  const auto warm = run_scoville(run + " -o " + dir.file("warm.h5"), env);
  REQUIRE(warm.exit_code == 0);
  const auto bypass = run_scoville(run + " --no-op-cache -o " + dir.file("bypass.h5"), env);
  REQUIRE(bypass.exit_code == 0);
  CHECK(cold.output == warm.output);
  CHECK(cold.output == bypass.output);
  // The op table is the default fidelity.
  CHECK(run_scoville(kPoint + " --system h200", env).output == cold.output);
  for (const char* metric : {"tput_per_chip", "median_tpot_s", "p99_e2el_s", "total_energy_j"}) {
    const std::vector<double> c = points_column(dir.file("cold.h5"), metric);
    CHECK(c == points_column(dir.file("warm.h5"), metric));
    CHECK(c == points_column(dir.file("bypass.h5"), metric));
  }
  const auto doc = scoville::output::read_results_file(dir.file("cold.h5"));
  CHECK(scoville::output::attribute_text(doc, "fidelity") == "op-table");

  // Without --quiet the op table reports where its answers came from.
  const std::string loud = kPoint.substr(0, kPoint.size() - std::string(" --quiet").size());
  const auto report = run_scoville(loud + " --system h200 --fidelity op-table", env);
  REQUIRE(report.exit_code == 0);
  CHECK_THAT(report.output, Catch::Contains("0 simulated"));
  CHECK_THAT(report.output, Catch::Contains("from the op cache"));

  const auto info = run_scoville("op-cache info", env);
  REQUIRE(info.exit_code == 0);
  CHECK_THAT(info.output, Catch::Contains(dir.file("cache")));
  CHECK_THAT(info.output, !Catch::Contains("entries: 0\n"));
  const auto clear = run_scoville("op-cache clear", env);
  REQUIRE(clear.exit_code == 0);
  CHECK_THAT(clear.output, Catch::Contains("removed"));
  CHECK_THAT(run_scoville("op-cache info", env).output, Catch::Contains("entries: 0\n"));
  const auto after = run_scoville(loud + " --system h200 --fidelity op-table", env);
  CHECK_THAT(after.output, !Catch::Contains(" 0 simulated"));

  // Pruning keeps the current chip model's entries (all of them here).
  const auto prune = run_scoville("op-cache prune", env);
  REQUIRE(prune.exit_code == 0);
  CHECK_THAT(prune.output, Catch::Contains("removed 0 entries"));

  // Misuse is a usage error.
  CHECK(run_scoville("op-cache shred", env).exit_code == 2);
  CHECK(run_scoville(kPoint + " --system h200 --fidelity roofline --no-op-cache", env).exit_code ==
        2);
  // An overlay fitted at the roofline is refused at the op table (and says where it belongs).
  const auto calibrated = run_scoville(
      run + " --calibration " + source_dir() + "/arch/systems/h200-hgx8.calibration.yaml", env);
  CHECK(calibrated.exit_code == 2);
  CHECK_THAT(calibrated.output, Catch::Contains("--fidelity roofline"));
}

TEST_CASE("op-table fidelity: a chip with twice the tile SRAM moves the curve the roofline keeps",
          "[cli][op_table]") {
  TempDir dir("op-table-sram");
  const std::string env = "SCOVILLE_CACHE_DIR=" + dir.file("cache");
  std::string chip = read_file(source_dir() + "/arch/chips/jalapeno.yaml");
  const std::string from = "    sram: 2 MiB";
  const size_t at = chip.find(from);
  REQUIRE(at != std::string::npos);
  chip.replace(at, from.size(), "    sram: 4 MiB");
  // The energy table is named relative to the data directory, so the copy resolves it too.
  const std::string doubled = dir.write("jalapeno-2x-sram.yaml", chip);
  const auto run = [&](const std::string& system, const std::string& fidelity) {
    const std::string out = dir.file(fidelity + (system == "jalapeno" ? "-base" : "-2x") + ".h5");
    const auto r = run_scoville(
        kPoint + " --system " + system + " --fidelity " + fidelity + " -o " + out, env);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    return points_column(out, "tput_per_chip");
  };
  CHECK(run("jalapeno", "roofline") == run(doubled, "roofline"));
  const std::vector<double> base = run("jalapeno", "op-table");
  const std::vector<double> more = run(doubled, "op-table");
  REQUIRE(base.size() == more.size());
  CHECK(base != more);
}

TEST_CASE("op-table fidelity: --search and serve price every mapping and pool on one op table",
          "[cli][op_table]") {
  TempDir dir("op-table-search");
  const std::string env = "SCOVILLE_CACHE_DIR=" + dir.file("cache");
  // A search tries mappings and prefill:decode splits in one process: one chip model serves all.
  const auto search = run_scoville(
      "inferencex --system h200-hgx8 --chips 2 --model llama-3.1-8b --isl 256 --osl 8 "
      "--concurrency 2 --prompts-per-client 1 --search --fidelity op-table -o " +
          dir.file("search.h5"),
      env);
  INFO(search.output);
  REQUIRE(search.exit_code == 0);
  CHECK_THAT(search.output, Catch::Contains("op-table fidelity"));
  CHECK(points_column(dir.file("search.h5"), "tput_per_chip").size() >= 2);

  // A scenario file (a replayed trace with MTP).
  const std::string serve_run =
      "serve --scenario " + source_dir() + "/workloads/scenarios/llama-3.1-8b-trace-mtp.yaml";
  const auto serve =
      run_scoville(serve_run + " --fidelity op-table -o " + dir.file("serve.h5"), env);
  INFO(serve.output);
  REQUIRE(serve.exit_code == 0);
  CHECK_THAT(serve.output, Catch::Contains("op-table fidelity"));
  const auto doc = scoville::output::read_results_file(dir.file("serve.h5"));
  CHECK(scoville::output::attribute_text(doc, "fidelity") == "op-table");
  CHECK(run_scoville(serve_run + " --fidelity cycle", env).exit_code == 2);
}

TEST_CASE("op-table fidelity: validate predicts rows of two systems on their chip models",
          "[cli][op_table]") {
  TempDir dir("op-table-validate");
  const std::string env = "SCOVILLE_CACHE_DIR=" + dir.file("cache");
  // Two systems, two chips: both op tables are built before the first row simulates.
  const std::string csv = dir.write(
      "m.csv",
      "id,source,system,chips,model,precision,framework,isl,osl,concurrency,throughput_metric,"
      "throughput,interactivity_tok_s_user,ttft_ms,tpot_ms,e2e_s,notes\n"
      "1,x,NVIDIA H200 (8-GPU),,gpt-oss-120b,FP4,vLLM,128,8,2,total_tok_s_per_chip,100.0,,,,,\n"
      "2,x,NVIDIA B200 (8-GPU),,gpt-oss-120b,FP4,TRT,128,8,2,total_tok_s_per_chip,100.0,,,,,\n");
  const auto table = run_scoville(
      "validate --measurements " + csv + " --prompts-per-client 1 --fidelity op-table", env);
  INFO(table.output);
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.output, Catch::Contains("2 rows predicted"));
  CHECK_THAT(table.output, Catch::Contains("op-table fidelity"));
  // (Without --fidelity this compared the op table with itself on another op cache, and passed
  // only while ops simulated in another order cost other amounts.)
  const auto roofline = run_scoville("validate --measurements " + csv +
                                     " --prompts-per-client 1 --fidelity roofline");
  REQUIRE(roofline.exit_code == 0);
  CHECK(table.output != roofline.output);
  CHECK(run_scoville("validate --measurements " + csv + " --fidelity cycle", env).exit_code == 2);
}

TEST_CASE("kv placements price at both fidelities and are recorded", "[cli][op_table][kv]") {
  TempDir dir("op-table-kv");
  const std::string env = "SCOVILLE_CACHE_DIR=" + dir.file("cache");
  // GPT-OSS on one GB200 of the NVL72 (which has a host: Grace over NVLink-C2C).
  const std::string point =
      "inferencex --system gb200-nvl72 --chips 1 --tp 1 --model gpt-oss-120b --isl 2048 "
      "--osl 16 --concurrency 4 --prompts-per-client 1 --quiet --no-calibration";
  const auto run = [&](const std::string& flags, const std::string& name) {
    const std::string out = dir.file(name + ".h5");
    const auto r = run_scoville(point + " " + flags + " -o " + out, env);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto doc = scoville::output::read_results_file(out);
    CHECK(scoville::output::attribute_text(doc, "kv_placement") ==
          (flags.find("--kv-placement") == std::string::npos ? "local"
                                                             : flags.substr(flags.rfind(' ') + 1)));
    return points_column(out, "median_tpot_s");
  };
  const std::vector<double> local = run("", "local");
  // The newest tokens from SRAM: the chip model sees it, the closed form does not.
  const std::vector<double> window = run("--kv-placement sram_window", "window");
  CHECK(window != local);
  CHECK(run("--fidelity roofline --kv-placement sram_window", "roofline-window") ==
        run("--fidelity roofline", "roofline-local"));
  // Host memory over the host link: slower decode at either fidelity.
  CHECK(run("--kv-placement remote_pool", "remote").front() > local.front());

  // remote_pool needs a host; an unknown placement names the known ones.
  const auto no_host = run_scoville(
      "inferencex --system h200 --chips 1 --model gpt-oss-120b --isl 128 --osl 8 "
      "--concurrency 1 --kv-placement remote_pool",
      env);
  CHECK(no_host.exit_code == 2);
  CHECK_THAT(no_host.output, Catch::Contains("host section"));
  const auto unknown = run_scoville(point + " --kv-placement attic", env);
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.output, Catch::Contains("striped"));
}
