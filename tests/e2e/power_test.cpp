// Power management end to end (docs/power.md): a chip forced over a low cap throttles to within
// 2% of it, a cap above peak power changes nothing, energy is conserved, and phase-aware gating
// saves decode energy for at most one wake-up latency per phase change.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <variant>

#include "sim/output/h5_reader.hpp"
#include "tests/e2e/test_support.hpp"

using namespace scoville;
using namespace scoville::test;

namespace {

const std::string kShape = "--model gpt-oss-20b --batch 2 --isl 512 --osl 8";

const output::Table& table(const output::H5Document& doc, const std::string& path) {
  for (const output::Table& t : doc.tables) {
    if (t.path == path) return t;
  }
  FAIL("no table " << path);
  throw;
}

template <class T>
const std::vector<T>& column(const output::Table& t, const std::string& name) {
  for (const output::Column& c : t.columns) {
    if (c.name == name) return std::get<std::vector<T>>(c.values);
  }
  FAIL("no column " << name << " in " << t.path);
  throw;
}

// Row index of a phase in a per-phase table of a one-chip run.
size_t phase_row(const output::Table& t, const std::string& phase) {
  const auto& phases = column<std::string>(t, "phase");
  for (size_t i = 0; i < phases.size(); ++i) {
    if (phases[i] == phase) return i;
  }
  FAIL("no phase " << phase);
  throw;
}

// Issue 30's floor for a phase over the cap: its average within 2 % below the cap (0.5 % over
// tolerated: the integral law's last op). The run's /power row of `phase`.
void check_held_at_cap(const output::H5Document& run, const std::string& phase, double cap) {
  const output::Table& power = table(run, "/power");
  const double average = column<double>(power, "avg_power_W")[phase_row(power, phase)];
  INFO(phase << " average " << average << " W at a " << cap << " W cap");
  CHECK(average >= cap * 0.98);
  CHECK(average <= cap * 1.005);
}

// The chip file with `from` replaced by `to` (which must be there).
std::string edited_chip(const TempDir& dir, const std::string& chip, const std::string& from,
                        const std::string& to) {
  std::string text = read_file(source_dir() + "/arch/chips/" + chip + ".yaml");
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return dir.write(chip + "-edited.yaml", text);
}

// The chip file without its power_management section.
std::string unmanaged_chip(const TempDir& dir, const std::string& chip) {
  std::string text = read_file(source_dir() + "/arch/chips/" + chip + ".yaml");
  const size_t begin = text.find("  power_management:");
  const size_t end = text.find("  energy:", begin);
  REQUIRE(begin != std::string::npos);
  REQUIRE(end != std::string::npos);
  text.erase(begin, end - begin);
  return dir.write(chip + "-unmanaged.yaml", text);
}

output::H5Document run_to_h5(const TempDir& dir, const std::string& name, const std::string& args) {
  const std::string out = dir.file(name + ".h5");
  const CommandResult r = run_scoville("run " + args + " -o " + out);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return output::read_results_file(out);
}

}  // namespace

TEST_CASE("a chip forced over a low power cap throttles to within 2% of it", "[e2e][power]") {
  TempDir dir("power-cap");
  // A 0.5 ms controller time constant, so that the ~13 ms throttled prefill spans about 26 of
  // them (its biggest ops last ~0.25 ms: against a much shorter constant, op-granular control
  // oscillates; see docs/power.md).
  const std::string chip =
      edited_chip(dir, "h200", "time_constant: 10 ms", "time_constant: 0.5 ms");
  const double cap = 350;  // W; the unthrottled prefill draws about 500 W on this shape
  const output::H5Document doc =
      run_to_h5(dir, "capped", "--chip " + chip + " " + kShape + " --power-cap 350W");
  const output::Table& power = table(doc, "/power");
  const size_t prefill = phase_row(power, "prefill");
  const size_t decode = phase_row(power, "decode");
  const double prefill_avg = column<double>(power, "avg_power_W")[prefill];
  INFO("prefill average " << prefill_avg << " W against a " << cap << " W cap");
  CHECK(column<double>(power, "power_cap_W")[prefill] == cap);
  CHECK(std::fabs(prefill_avg - cap) <= 0.02 * cap);
  CHECK(column<double>(power, "avg_power_W")[decode] <= cap * 1.02);
  CHECK(column<double>(power, "throttled_s")[prefill] > 0);
  const double nominal = column<double>(power, "nominal_frequency_Hz")[prefill];
  CHECK(column<double>(power, "effective_frequency_Hz")[prefill] < nominal);

  // Energy conservation: the sum of component energies of each phase is the integral of the
  // per-op power over the phase's time (each simulated iteration weighted by what it stands for).
  const output::Table& energy = table(doc, "/energy");
  const output::Table& iterations = table(doc, "/iterations");
  const output::Table& ops = table(doc, "/ops");
  std::map<std::string, double> component_sum;
  for (size_t i = 0; i < column<std::string>(energy, "phase").size(); ++i) {
    component_sum[column<std::string>(energy, "phase")[i]] += column<double>(energy, "energy_J")[i];
  }
  std::map<std::string, double> integral;
  const auto& op_iteration = column<int64_t>(ops, "iteration");
  for (size_t k = 0; k < op_iteration.size(); ++k) {
    const size_t it = static_cast<size_t>(op_iteration[k]);
    const double dt = column<double>(ops, "dur_s")[k];
    if (dt <= 0) continue;
    const double p = column<double>(ops, "energy_J")[k] / dt;
    integral[column<std::string>(iterations, "phase")[it]] +=
        column<double>(iterations, "weight")[it] * p * dt;
  }
  for (const auto& [phase, sum] : component_sum) {
    INFO(phase);
    CHECK(sum == Approx(integral[phase]).epsilon(1e-9));
    const output::Table& phases = table(doc, "/phases");
    const size_t row = phase_row(phases, phase);
    CHECK(sum ==
          Approx(column<double>(phases, "avg_power_W")[row] * column<double>(phases, "time_s")[row])
              .epsilon(1e-9));
  }
}

// A cap that only the prefill exceeds: the decode steps, sampled from a decode phase that
// stays under the cap, keep their uncapped time and energy, although they follow a throttled
// prefill in the program (each sampled iteration starts from its own steady state, and no clock
// a throttled op was priced at stays on the chip model for the next op).
TEST_CASE("a cap only the prefill exceeds leaves the decode phase as uncapped", "[e2e][power]") {
  TempDir dir("power-cap-decode");
  // 450 W: between the Jalapeno-like chip's uncapped decode (about 310 W) and prefill (about 600
  // W). (On H200 a decode that streams its HBM at full bandwidth draws more than its prefill since
  // the fitted active power, so no cap lies between them there.)
  const std::string shape = "--model llama-3.1-8b --batch 16 --isl 8192 --osl 16";
  const output::H5Document free = run_to_h5(dir, "free", "--chip jalapeno " + shape);
  const output::H5Document capped =
      run_to_h5(dir, "capped", "--chip jalapeno " + shape + " --power-cap 450W");
  const output::Table& power_free = table(free, "/power");
  const output::Table& power = table(capped, "/power");
  const size_t prefill = phase_row(power, "prefill");
  const size_t decode = phase_row(power, "decode");
  INFO("uncapped prefill " << column<double>(power_free, "avg_power_W")[prefill] << " W, decode "
                           << column<double>(power_free, "avg_power_W")[decode] << " W");
  REQUIRE(column<double>(power_free, "avg_power_W")[prefill] > 450);
  REQUIRE(column<double>(power_free, "avg_power_W")[decode] < 450);
  CHECK(column<double>(power, "throttled_s")[prefill] > 0);
  CHECK(column<double>(power, "throttled_s")[decode] == 0);
  const output::Table& phases_free = table(free, "/phases");
  const output::Table& phases = table(capped, "/phases");
  const size_t row = phase_row(phases, "decode");
  CHECK(column<double>(phases, "time_s")[row] ==
        Approx(column<double>(phases_free, "time_s")[phase_row(phases_free, "decode")])
            .epsilon(0.01));
  CHECK(column<double>(phases, "avg_power_W")[row] ==
        Approx(column<double>(phases_free, "avg_power_W")[phase_row(phases_free, "decode")])
            .epsilon(0.01));
}

// A sampled decode step over the cap starts from the debt the step before it left, as one of a
// thousand alike: on B200 the attention and gate/up matmuls stream HBM at 514-517 W even at the
// lowest clock, over a 500 W cap, and the short ops between them pay the debt back a share dt/tau
// at a time. Started from nothing owed, each 5.5 ms step ended with energy still owed and decode
// averaged 510.3 W (+2.05 %); settled, it holds the cap.
TEST_CASE("a sampled decode step over the cap starts from the debt the step before left",
          "[e2e][power]") {
  TempDir dir("power-cap-settle");
  const std::string shape = "--model llama-3.1-8b --batch 16 --isl 8192 --osl 64";
  const output::H5Document capped =
      run_to_h5(dir, "capped", "--chip b200 " + shape + " --power-cap 500W");
  const output::Table& power = table(capped, "/power");
  CHECK(column<double>(power, "throttled_s")[phase_row(power, "decode")] > 0);
  check_held_at_cap(capped, "decode", 500);
}

TEST_CASE("a power cap above peak power leaves timing bit-identical", "[e2e][power]") {
  TempDir dir("power-identical");
  const output::H5Document plain =
      run_to_h5(dir, "plain", "--chip " + unmanaged_chip(dir, "h200") + " " + kShape);
  const output::H5Document managed =
      run_to_h5(dir, "managed", "--chip h200 " + kShape + " --power-cap 100kW");
  for (const char* name : {"start_s", "dur_s", "energy_J"}) {
    INFO(name);
    CHECK(column<double>(table(plain, "/ops"), name) ==
          column<double>(table(managed, "/ops"), name));
  }
  CHECK(column<double>(table(plain, "/phases"), "time_s") ==
        column<double>(table(managed, "/phases"), "time_s"));
  CHECK(column<double>(table(managed, "/power"), "throttled_s") == std::vector<double>{0, 0});
  // Without power management the /power table says so.
  CHECK(column<int64_t>(table(plain, "/power"), "power_managed") == std::vector<int64_t>{0, 0});
  // And a low cap does slow the chip down.
  const output::H5Document capped =
      run_to_h5(dir, "capped", "--chip h200 " + kShape + " --power-cap 300W");
  const auto& t_plain = column<double>(table(plain, "/phases"), "time_s");
  const auto& t_capped = column<double>(table(capped, "/phases"), "time_s");
  CHECK(t_capped[0] > t_plain[0]);
}

TEST_CASE("phase-aware gating saves decode energy for one wake-up per phase change",
          "[e2e][power]") {
  TempDir dir("power-gating");
  // A cap far above the chip's power isolates gating from the cap controller (gating frees
  // power budget, so under a binding cap a gated chip may even run faster).
  const std::string kNoCap = " --power-cap 100kW";
  const std::string ungated_chip = edited_chip(dir, "jalapeno", "enabled: true", "enabled: false");
  const output::H5Document gated = run_to_h5(dir, "gated", "--chip jalapeno " + kShape + kNoCap);
  const output::H5Document ungated =
      run_to_h5(dir, "ungated", "--chip " + ungated_chip + " " + kShape + kNoCap);
  const output::Table& g = table(gated, "/phases");
  const output::Table& u = table(ungated, "/phases");
  const size_t decode = phase_row(g, "decode");
  const size_t prefill = phase_row(g, "prefill");
  CHECK(column<double>(g, "energy_J")[decode] < column<double>(u, "energy_J")[decode]);
  // One phase change (prefill -> decode) in a request; the wake latency in the chip file is 1 us.
  const double wake_latency = 1e-6;
  const double rise = column<double>(g, "time_s")[decode] - column<double>(u, "time_s")[decode];
  CHECK(rise >= 0);
  CHECK(rise <= wake_latency * (1 + 1e-9));
  CHECK(column<double>(g, "time_s")[prefill] == column<double>(u, "time_s")[prefill]);
  CHECK(column<double>(table(gated, "/power"), "gating_stall_s")[decode] == Approx(wake_latency));
}

TEST_CASE("power caps: bad values and chips without power management are refused", "[e2e][power]") {
  TempDir dir("power-errors");
  const CommandResult unit = run_scoville("run --chip h200 " + kShape + " --power-cap 5J");
  CHECK(unit.exit_code == 2);
  CHECK_THAT(unit.output, Catch::Contains("--power-cap") && Catch::Contains("a power"));
  const CommandResult zero = run_scoville("run --chip h200 " + kShape + " --power-cap 0W");
  CHECK(zero.exit_code == 2);
  const CommandResult unmanaged = run_scoville("run --chip " + unmanaged_chip(dir, "h200") + " " +
                                               kShape + " --power-cap 500W");
  CHECK(unmanaged.exit_code == 2);
  CHECK_THAT(unmanaged.output, Catch::Contains("power_management"));
  // The study key, located in its file.
  const std::string study = dir.write("study.yaml", R"(study:
  chips: [h200]
  model: gpt-oss-20b
  power_cap: 500 J
)");
  const CommandResult key = run_scoville("run --study " + study);
  CHECK(key.exit_code == 2);
  CHECK_THAT(key.output, Catch::Contains("study.yaml:4") && Catch::Contains("study.power_cap"));
}

TEST_CASE("a phase over the cap averages within 2% below it at the shipped time constant",
          "[e2e][power][blend]") {
  // The default study's prefill on H200 has matmuls of 15-36 ms against the 10 ms constant: with
  // one clock per op it averaged 245 W at a 300 W cap; sub-op control blends two grid clocks. The
  // cap is issue 30's 50 % of TDP: at 300 W a window of HBM-bound work at the lowest clock still
  // draws 374 W with the fitted active power (its HBM power does not fall with the clock), so no
  // governor could hold every window there.
  TempDir dir("power-cap-blend");
  const std::string shape = "--model llama-3.1-8b --batch 16 --isl 8192 --osl 16";
  const double cap = 350;
  const output::H5Document capped =
      run_to_h5(dir, "capped", "--chip h200 " + shape + " --power-cap 350W");
  const output::Table& power = table(capped, "/power");
  const size_t prefill = phase_row(power, "prefill");
  const double average = column<double>(power, "avg_power_W")[prefill];
  check_held_at_cap(capped, "prefill", cap);
  // The timeline: windows of the controller's 10 ms over each iteration, the clock on the grid.
  const output::Table& windows = table(capped, "/power_windows");
  const auto& window_s = column<double>(windows, "window_s");
  const auto& window_avg = column<double>(windows, "avg_power_W");
  const auto& window_phase = column<std::string>(windows, "phase");
  REQUIRE(window_s.size() > 100);  // a prefill of about 4 s
  double energy = 0, time = 0, highest = 0;
  for (size_t i = 0; i < window_s.size(); ++i) {
    CHECK(window_s[i] <= 10e-3 * (1 + 1e-12));
    if (window_phase[i] != "prefill") continue;
    energy += window_avg[i] * window_s[i];
    time += window_s[i];
    highest = std::max(highest, window_avg[i]);
  }
  // The windows hold the phase's energy, and what a board's 10 ms reading shows at its worst.
  CHECK(energy / time == Approx(average).epsilon(1e-9));
  CHECK(column<double>(power, "peak_window_power_W")[prefill] == highest);
  // Sub-op control holds every window near the cap too: one clock per op met the average with
  // windows at 520 W (the matmuls at nominal between throttled ones).
  CHECK(highest <= cap * 1.05);
  const output::Table& clocks = table(capped, "/clock_timeline");
  for (const double f : column<double>(clocks, "frequency_Hz")) {
    CHECK(f >= 0.765e9 * (1 - 1e-12));
    CHECK(f <= 1.83e9 * (1 + 1e-12));
  }
  const auto& starts = column<double>(clocks, "start_s");
  const auto& ends = column<double>(clocks, "end_s");
  for (size_t i = 0; i < starts.size(); ++i) CHECK(ends[i] > starts[i]);
}
