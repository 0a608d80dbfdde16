// Power in `scoville serve` and `scoville inferencex` as a user runs them: a cap throttles and
// raises TPOT, a chip without power management refuses a cap, a system file's power section
// gives all-in figures, and the HDF5 output carries the power columns and /serving_power.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include "sim/output/h5_reader.hpp"
#include "tests/e2e/test_support.hpp"

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

const scoville::output::Column& column(const scoville::output::Table& t, const std::string& name) {
  for (const auto& c : t.columns) {
    if (c.name == name) return c;
  }
  FAIL("no column " << name << " in " << t.path);
  throw;
}

double value(const scoville::output::Table& t, const std::string& name, size_t row = 0) {
  const auto& c = column(t, name);
  if (const auto* d = std::get_if<std::vector<double>>(&c.values)) return d->at(row);
  if (const auto* i = std::get_if<std::vector<int64_t>>(&c.values)) {
    return static_cast<double>(i->at(row));
  }
  FAIL("column " << name << " is not numeric");
  throw;
}

const std::string kPoint =
    "inferencex --fidelity roofline --system h200-hgx8 --tp 1 --chips 1 --model llama-3.1-8b --isl "
    "1024 --osl 64 "
    "--concurrency 32 --quiet";

}  // namespace

TEST_CASE("inferencex --power-cap throttles the clock and raises TPOT", "[cli][serving][power]") {
  TempDir dir("serving-power");
  const auto free_run = run_scoville(kPoint + " -o " + dir.file("free.h5"));
  REQUIRE(free_run.exit_code == 0);
  const auto capped = run_scoville(kPoint + " --power-cap 300W -o " + dir.file("capped.h5"));
  INFO(capped.output);
  REQUIRE(capped.exit_code == 0);
  CHECK_THAT(capped.output, Catch::Contains("power cap 300 W"));
  const auto a = scoville::output::read_results_file(dir.file("free.h5"));
  const auto b = scoville::output::read_results_file(dir.file("capped.h5"));
  const auto& pa = table(a, "/points");
  const auto& pb = table(b, "/points");
  CHECK(value(pa, "throttled_share") == 0.0);
  CHECK(value(pb, "throttled_share") > 0.3);
  CHECK(value(pb, "median_tpot_s") > value(pa, "median_tpot_s"));
  CHECK(value(pb, "busy_power_per_chip_w") < value(pa, "busy_power_per_chip_w"));
  CHECK(value(pb, "effective_clock_hz") < value(pa, "effective_clock_hz"));
  CHECK(value(pb, "power_cap_w") == 300.0);
  // Units travel with the columns.
  CHECK(column(pb, "busy_energy_j").units == "J");
  CHECK(column(pb, "rejected_draft_energy_j").units == "J");
  CHECK(column(pb, "joules_per_accepted_token").units == "J");
  CHECK(column(pb, "effective_clock_hz").units == "Hz");
  CHECK(column(pb, "all_in_power_per_chip_w").units == "W");
  // The system file's power section: all-in provisioned power and tokens per MW.
  const double all_in = value(pb, "all_in_power_per_chip_w");
  CHECK(all_in > 700.0);
  CHECK(value(pb, "tput_per_mw_all_in") ==
        Approx(value(pb, "tput_per_chip") * 1e6 / all_in).epsilon(1e-9));
  // /serving_power: per phase, and the energies add up to the point's total.
  const auto& sp = table(b, "/serving_power");
  double energy = value(sp, "pool_idle_energy_J");
  const auto& busy = std::get<std::vector<double>>(column(sp, "busy_s").values);
  for (size_t i = 0; i < busy.size(); ++i) {
    energy += value(sp, "avg_power_per_chip_W", i) * busy[i];
  }
  CHECK(energy == Approx(value(pb, "total_energy_j")).epsilon(1e-9));
}

TEST_CASE("a power cap on a chip without power management is refused", "[cli][serving][power]") {
  const auto r = run_scoville(
      "inferencex --fidelity roofline --system gb200 --chips 1 --model llama-3.1-8b --isl 128 "
      "--osl "
      "8 --concurrency 1 "
      "--power-cap 500W --quiet");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("--power-cap") && Catch::Contains("power_management"));
  const auto bad = run_scoville(
      "inferencex --fidelity roofline --system h200 --chips 1 --model llama-3.1-8b --isl 128 --osl "
      "8 --concurrency 1 "
      "--power-cap 500J --quiet");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("--power-cap"));
}

TEST_CASE("serve prints the power report and takes the scenario's cap", "[cli][serving][power]") {
  TempDir dir("serve-power");
  const std::string scenario = dir.file("capped.yaml");
  {
    std::ofstream f(scenario);
    f << "scenario:\n  name: capped\n  system: {chip: h200, chips: 1}\n  model: llama-3.1-8b\n"
         "  mapping:\n    default: {chips: 1, tp: 1}\n  requests:\n    pattern: poisson\n"
         "    isl: 512\n    osl: 32\n    rate: 2\n    num_prompts: 10\n  power:\n"
         "    cap: 250 W\n";
  }
  const auto r = run_scoville("serve --fidelity roofline --scenario " + scenario);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("idle_share") && Catch::Contains("pool 0 idle") &&
                           Catch::Contains("cap 250 W") && Catch::Contains("throttled"));
  const auto over = run_scoville("serve --fidelity roofline --scenario " + scenario +
                                 " --power-cap 5000W --json");
  REQUIRE(over.exit_code == 0);
  CHECK_THAT(over.output, Catch::Contains("\"power_cap_w\": 5000"));
  {
    std::ofstream f(scenario);
    f << "scenario:\n  name: capped\n  system: {chip: gb200, chips: 1}\n  model: llama-3.1-8b\n"
         "  mapping:\n    default: {chips: 1, tp: 1}\n  requests:\n    pattern: poisson\n"
         "    isl: 512\n    osl: 32\n    rate: 2\n    num_prompts: 10\n  power:\n"
         "    cap: 250 W\n";
  }
  const auto refused = run_scoville("serve --fidelity roofline --scenario " + scenario);
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.output, Catch::Contains("capped.yaml:14") && Catch::Contains("power.cap"));
}
