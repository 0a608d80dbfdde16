// Calibration: the knobs the roofline honours, the fitter, and the overlay file.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "sim/base/error.hpp"
#include "sim/config/calibration_overlay.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/serving/knob_fit.hpp"
#include "sim/serving/roofline_cost_model.hpp"
#include "sim/validation/measurement_rows.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;
using namespace scoville::serving;

namespace {

config::DataPaths paths() { return config::DataPaths{SCOVILLE_SOURCE_DIR}; }

RooflineCostModel h200_model(const EfficiencyKnobs& knobs) {
  workloads::PoolMapping p;
  p.chips = 1;
  return RooflineCostModel(
      workloads::load_model(paths().resolve("llama-3.1-8b", "workloads/models")),
      config::load_chip("h200", paths()), {p}, std::nullopt, {}, {}, knobs);
}

double part(const IterationCost& c, const std::string& name) {
  for (const auto& [n, t] : c.breakdown) {
    if (n == name) return t.si();
  }
  return -1;
}

IterationBatch decode(int64_t n, int64_t context) {
  IterationBatch b;
  for (int64_t i = 0; i < n; ++i)
    b.sequences.push_back({SequencePhase::kDecode, 1, context - 1, context});
  return b;
}

IterationBatch prefill(int64_t tokens) {
  IterationBatch b;
  b.sequences.push_back({SequencePhase::kPrefill, tokens, 0, tokens});
  return b;
}

std::string temp_dir(const std::string& tag) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("scoville-calib-" + tag + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// The message of the InputError that parsing `text` as an overlay raises; "" when it parses.
std::string overlay_error(const std::string& text, const std::string& display_name) {
  try {
    config::parse_overlay_string(text, display_name);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the roofline scales op times by the class efficiencies and adds the overheads",
          "[calibration]") {
  const RooflineCostModel raw = h200_model({});
  EfficiencyKnobs k;
  k.bandwidth.fill(0.5);
  k.compute.fill(0.25);
  k.per_iteration = Duration(3e-3);
  k.per_op = Duration(2e-6);
  const RooflineCostModel slow = h200_model(k);
  for (const IterationBatch& b : {decode(4, 512), prefill(4096)}) {
    const IterationCost a = raw.cost(b), c = slow.cost(b);
    CHECK(part(c, "hbm") == Approx(2.0 * part(a, "hbm")).epsilon(1e-12));
    CHECK(part(c, "compute") == Approx(4.0 * part(a, "compute")).epsilon(1e-12));
    CHECK(part(c, "software") > part(a, "software") + 3e-3);
    CHECK(c.time.si() > a.time.si());
  }
  // set_efficiency re-prices (the batch cache must not keep the old knobs' costs).
  RooflineCostModel m = h200_model({});
  const double before = m.cost(decode(4, 512)).time.si();
  m.set_efficiency(k);
  CHECK(m.cost(decode(4, 512)).time.si() == Approx(slow.cost(decode(4, 512)).time.si()));
  m.set_efficiency({});
  CHECK(m.cost(decode(4, 512)).time.si() == before);
}

TEST_CASE("fit_knobs finds the minimum of a known objective inside the bounds", "[calibration]") {
  // A separable bowl in log space with its minimum at known knob values.
  const double c0 = 0.55, b0 = 0.8, t0 = 4e-3;
  auto objective = [&](const EfficiencyKnobs& k) {
    return std::pow(std::log(k.compute[0] / c0), 2) + std::pow(std::log(k.bandwidth[1] / b0), 2) +
           std::pow((k.per_iteration.si() - t0) / 1e-3, 2);
  };
  const FitResult r =
      fit_knobs({"compute_efficiency.all", "bandwidth_efficiency.all", "per_iteration_overhead"},
                {}, objective);
  CHECK(r.knobs.compute[0] == Approx(c0).epsilon(0.01));
  CHECK(r.knobs.compute[2] == r.knobs.compute[0]);  // ".all" ties the classes
  CHECK(r.knobs.bandwidth[1] == Approx(b0).epsilon(0.01));
  CHECK(r.knobs.per_iteration.si() == Approx(t0).epsilon(0.02));
  CHECK(r.after < r.before);
  // Bounds hold even when the objective pulls outside them.
  const FitResult low = fit_knobs({"compute_efficiency.gemm"}, {},
                                  [](const EfficiencyKnobs& k) { return k.compute[0]; });
  CHECK(low.knobs.compute[0] == Approx(knob_spec("compute_efficiency.gemm").lo).epsilon(0.01));
  CHECK_THROWS_AS(knob_spec("compute_efficiency.tensor"), std::invalid_argument);
}

TEST_CASE("calibrate recovers the knobs that generated synthetic rows", "[calibration]") {
  // Rows produced by the serving model itself with known knobs; the fit starts from the peaks.
  EfficiencyKnobs truth;
  truth.bandwidth.fill(0.6);
  truth.per_iteration = Duration(2e-3);
  const engine::ServingHardware hw = engine::resolve_hardware("h200", "", 1, "", false);
  std::vector<validation::RowPlan> plans;
  std::vector<validation::RowSimulator> sims;
  // Two rows that weigh the knobs differently: one sequence with a short context (weights
  // dominate a step, the overhead is a large share) and 64 with long contexts (KV reads dominate).
  for (const auto& [concurrency, isl] : {std::pair<int64_t, int64_t>{1, 128}, {64, 2048}}) {
    validation::RowPlan p;
    p.id = std::to_string(concurrency);
    p.model = "llama-3.1-8b";
    p.metric = "total_tok_s_per_chip";
    p.isl = isl;
    p.osl = 64;
    p.concurrency = concurrency;
    p.replica_chips = 1;
    sims.emplace_back(p, hw, 1);
    const validation::RowPrediction t = sims.back().run(truth);
    p.published = t.throughput;
    p.published_intvty = t.intvty;
    plans.push_back(p);
  }
  auto objective = [&](const EfficiencyKnobs& k) {
    std::vector<validation::RowPrediction> pred;
    for (validation::RowSimulator& s : sims) pred.push_back(s.run(k));
    return validation::combined_log_error(plans, pred);
  };
  const FitResult r =
      fit_knobs({"bandwidth_efficiency.all", "per_iteration_overhead"}, {}, objective);
  CHECK(r.before > 0.05);  // ~25 % off
  CHECK(r.after < 1e-5);
  CHECK(r.knobs.bandwidth[0] == Approx(0.6).epsilon(0.03));
  CHECK(r.knobs.per_iteration.si() == Approx(2e-3).epsilon(0.05));
  // Deterministic: the same rows give the same knobs bit for bit.
  const FitResult again =
      fit_knobs({"bandwidth_efficiency.all", "per_iteration_overhead"}, {}, objective);
  CHECK(again.knobs.bandwidth[0] == r.knobs.bandwidth[0]);
  CHECK(again.knobs.per_iteration.si() == r.knobs.per_iteration.si());
}

TEST_CASE("an overlay survives a write and read round trip", "[calibration]") {
  config::CalibrationOverlay o;
  o.system = "h200-hgx8";
  o.knobs.compute = {0.5, 0.4, 0.9};
  o.knobs.bandwidth = {0.75, 0.75, 0.75};
  o.knobs.per_op = Duration(1.5e-6);
  o.knobs.per_iteration = Duration(2.25e-3);
  config::CalibrationFit f;
  f.measurements = "m.csv";
  f.rows = {"4", "13"};
  f.held_out = {"22"};
  f.knobs = {"compute_efficiency.gemm", "bandwidth_efficiency.all"};
  f.objective = "mape";
  f.mape_before = 80.5;
  f.mape_after = 9.25;
  f.command = "scoville calibrate --measurements \"m.csv\"";
  o.fit = f;
  const config::CalibrationOverlay back =
      config::parse_overlay_string(config::overlay_yaml(o), "x");
  CHECK(back.system == o.system);
  CHECK(back.knobs.compute == o.knobs.compute);
  CHECK(back.knobs.bandwidth == o.knobs.bandwidth);
  CHECK(back.knobs.per_op.si() == Approx(1.5e-6));
  CHECK(back.knobs.per_iteration.si() == Approx(2.25e-3));
  REQUIRE(back.fit);
  CHECK(back.fit->rows == f.rows);
  CHECK(back.fit->held_out == f.held_out);
  CHECK(back.fit->knobs == f.knobs);
  CHECK(back.fit->command == f.command);
  CHECK(back.fit->mape_after == Approx(9.25));
}

TEST_CASE("an overlay names systems as their files are named and writes back what it read",
          "[calibration]") {
  // `inherits:` becomes a path: a name with '/' (or a control character) is refused, located.
  for (const std::string name : {"../etc/x", "a/b", "/abs", "tab\tname"}) {
    INFO(name);
    const std::string what = overlay_error(
        "calibration:\n  system: x\n  inherits: \"" + name + "\"\n", "name.calibration.yaml");
    CHECK(what.find("name.calibration.yaml:3") != std::string::npos);
    CHECK(what.find("system name") != std::string::npos);
  }
  // A fitted-overlay section on an inheriting overlay would be dropped when written: refused.
  CHECK_THROWS_AS(
      config::parse_overlay_string(
          "calibration:\n  system: x\n  inherits: y\n  fit: {objective: mape}\n", "fit.yaml"),
      InputError);
  // Found by the `overlay` fuzz entry: text is written so that it reads back the same (a name
  // with a leading space or one YAML would read as null, a tab and a newline in a note, a
  // duration on the us/ms boundary).
  CHECK(config::parse_overlay_string(
            config::overlay_yaml(config::parse_overlay_string(
                "calibration:\n  system: \" f\"\n  inherits: \".x\"\n", "space.yaml")),
            "back.yaml")
            .system == " f");
  const config::CalibrationOverlay o = config::parse_overlay_string(
      "calibration:\n  system: \"null\"\n  why: \"a\\tb\\nc\"\n  knobs:\n"
      "    per_op_overhead: 999.99 us\n",
      "text.yaml");
  const std::string written = config::overlay_yaml(o);
  const config::CalibrationOverlay back = config::parse_overlay_string(written, "back.yaml");
  CHECK(back.system == "null");
  CHECK(back.why == "a\tb\nc");
  CHECK(config::overlay_yaml(back) == written);
  CHECK(written.find("per_op_overhead: 1 ms") != std::string::npos);
}

TEST_CASE("a bad overlay is one located InputError", "[calibration]") {
  const std::string text =
      "calibration:\n"
      "  system: h200-hgx8\n"
      "  knobs:\n"
      "    compute_efficiency:\n"
      "      gemm: 1.5\n";
  try {
    config::parse_overlay_string(text, "bad.calibration.yaml");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("bad.calibration.yaml:5") != std::string::npos);
    CHECK(what.find("gemm") != std::string::npos);
  }
  CHECK_THROWS_AS(config::parse_overlay_string("calibration:\n  system: x\n", "none.yaml"),
                  InputError);
  CHECK_THROWS_AS(
      config::parse_overlay_string(
          "calibration:\n  system: x\n  inherits: y\n  knobs:\n    per_op_overhead: 1 us\n",
          "both.yaml"),
      InputError);
}

TEST_CASE("an inheriting overlay takes its ancestor's knobs along a chain, overrides applied",
          "[calibration]") {
  const std::string dir = temp_dir("inherit");
  std::ofstream(dir + "/parent.calibration.yaml")
      << "calibration:\n  system: parent\n  knobs:\n    compute_efficiency: {gemm: 0.9, "
         "attention: 0.8, other: 0.7}\n    bandwidth_efficiency: {gemm: 0.7, attention: 0.6, "
         "other: 0.5}\n    per_iteration_overhead: 3 ms\n";
  std::ofstream(dir + "/child.calibration.yaml")
      << "calibration:\n  system: child\n  inherits: parent\n  why: no measurements\n";
  // Replaces one class of one fraction and the per-iteration time; the rest is the parent's.
  std::ofstream(dir + "/anchored.calibration.yaml")
      << "calibration:\n  system: anchored\n  inherits: parent\n  overrides:\n"
         "    compute_efficiency: {gemm: 0.5}\n    per_iteration_overhead: 1 ms\n";
  std::ofstream(dir + "/grandchild.calibration.yaml")
      << "calibration:\n  system: grandchild\n  inherits: anchored\n  overrides:\n"
         "    bandwidth_efficiency: {other: 0.25}\n";
  std::ofstream(dir + "/loop-a.calibration.yaml")
      << "calibration:\n  system: loop-a\n  inherits: loop-b\n";
  std::ofstream(dir + "/loop-b.calibration.yaml")
      << "calibration:\n  system: loop-b\n  inherits: loop-a\n";
  CHECK_FALSE(config::find_overlay(dir + "/absent.yaml"));

  const auto child = config::find_overlay(dir + "/child.yaml");
  REQUIRE(child);
  CHECK(child->knobs.bandwidth[1] == Approx(0.6));
  CHECK(child->knobs.per_iteration.si() == Approx(3e-3));
  CHECK(child->override_files.empty());
  CHECK(child->describe().find("parent.calibration.yaml") != std::string::npos);
  CHECK(child->describe().find("overrides") == std::string::npos);

  const auto anchored = config::find_overlay(dir + "/anchored.yaml");
  REQUIRE(anchored);
  CHECK(anchored->knobs.compute[0] == Approx(0.5));  // overridden
  CHECK(anchored->knobs.compute[1] == Approx(0.8));  // the parent's
  CHECK(anchored->knobs.compute[2] == Approx(0.7));
  CHECK(anchored->knobs.bandwidth[0] == Approx(0.7));
  CHECK(anchored->knobs.per_iteration.si() == Approx(1e-3));

  // Two levels: the fitted knobs, the middle overlay's overrides, then its own.
  const auto grandchild = config::find_overlay(dir + "/grandchild.yaml");
  REQUIRE(grandchild);
  CHECK(grandchild->knobs.compute[0] == Approx(0.5));
  CHECK(grandchild->knobs.bandwidth[2] == Approx(0.25));
  CHECK(grandchild->knobs.bandwidth[1] == Approx(0.6));
  CHECK(grandchild->knobs.per_iteration.si() == Approx(1e-3));
  CHECK(grandchild->knobs_file == dir + "/parent.calibration.yaml");
  REQUIRE(grandchild->override_files.size() == 2);
  const std::string described = grandchild->describe();
  CHECK(described.find("knobs of parent.calibration.yaml") != std::string::npos);
  CHECK(described.find("overrides of anchored.calibration.yaml grandchild.calibration.yaml") !=
        std::string::npos);

  try {
    config::find_overlay(dir + "/loop-a.yaml");
    FAIL("expected an InputError for the cycle");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("cycle") != std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("overrides belong to inheriting overlays and say which knob they replace",
          "[calibration]") {
  // Own knobs and overrides together: the knobs are the place to state them.
  CHECK_THROWS_AS(config::parse_overlay_string(
                      "calibration:\n  system: x\n  knobs:\n    per_op_overhead: 1 us\n"
                      "  overrides:\n    per_op_overhead: 2 us\n",
                      "own.yaml"),
                  InputError);
  const std::string above_one = overlay_error(
      "calibration:\n  system: x\n  inherits: y\n  overrides:\n"
      "    compute_efficiency: {gemm: 1.5}\n",
      "range.calibration.yaml");
  CHECK(above_one.find("range.calibration.yaml:5") != std::string::npos);
  CHECK(above_one.find("gemm") != std::string::npos);
  CHECK_THROWS_AS(config::parse_overlay_string("calibration:\n  system: x\n  inherits: y\n"
                                               "  overrides:\n    compute: {gemm: 0.5}\n",
                                               "unknown.yaml"),
                  InputError);
  // Written back, an inheriting overlay keeps its overrides.
  const config::CalibrationOverlay o = config::parse_overlay_string(
      "calibration:\n  system: x\n  inherits: y\n  overrides:\n"
      "    compute_efficiency: {attention: 0.4}\n    per_iteration_overhead: 2 ms\n",
      "written.yaml");
  const config::CalibrationOverlay back =
      config::parse_overlay_string(config::overlay_yaml(o), "back.yaml");
  CHECK(back.inherits == "y");
  REQUIRE(back.overrides.compute[1]);
  CHECK(*back.overrides.compute[1] == Approx(0.4));
  CHECK_FALSE(back.overrides.compute[0]);
  REQUIRE(back.overrides.per_iteration);
  CHECK(back.overrides.per_iteration->si() == Approx(2e-3));
}

TEST_CASE("each fidelity has its own overlay and inherits only within it", "[calibration]") {
  const std::string dir = temp_dir("fidelity");
  std::ofstream(dir + "/fitted.calibration.yaml")
      << "calibration:\n  system: fitted\n  knobs:\n    per_iteration_overhead: 3 ms\n";
  std::ofstream(dir + "/fitted.op-table.calibration.yaml")
      << "calibration:\n  system: fitted\n  fidelity: op-table\n  knobs:\n"
         "    per_op_overhead: 2 us\n";
  std::ofstream(dir + "/child.op-table.calibration.yaml")
      << "calibration:\n  system: child\n  fidelity: op-table\n  inherits: fitted\n";
  // Named for the op table, but fitted at the roofline (no fidelity: key).
  std::ofstream(dir + "/misnamed.op-table.calibration.yaml")
      << "calibration:\n  system: misnamed\n  knobs:\n    per_op_overhead: 1 us\n";
  // An op-table overlay whose parent exists only at the roofline.
  std::ofstream(dir + "/orphan.op-table.calibration.yaml")
      << "calibration:\n  system: orphan\n  fidelity: op-table\n  inherits: rooflineonly\n";
  std::ofstream(dir + "/rooflineonly.calibration.yaml")
      << "calibration:\n  system: rooflineonly\n  knobs:\n    per_op_overhead: 1 us\n";

  CHECK(config::overlay_path_for(dir + "/fitted.yaml") == dir + "/fitted.calibration.yaml");
  CHECK(config::overlay_path_for(dir + "/fitted.yaml", "op-table") ==
        dir + "/fitted.op-table.calibration.yaml");
  const auto roofline = config::find_overlay(dir + "/fitted.yaml");
  REQUIRE(roofline);
  CHECK(roofline->fidelity == "roofline");
  CHECK(roofline->knobs.per_iteration.si() == Approx(3e-3));
  const auto op_table = config::find_overlay(dir + "/fitted.yaml", "op-table");
  REQUIRE(op_table);
  CHECK(op_table->fidelity == "op-table");
  CHECK(op_table->knobs.per_op.si() == Approx(2e-6));
  CHECK(op_table->knobs.per_iteration.si() == 0);
  // Inheritance follows the same fidelity's file.
  const auto child = config::find_overlay(dir + "/child.yaml", "op-table");
  REQUIRE(child);
  CHECK(child->knobs.per_op.si() == Approx(2e-6));
  CHECK(child->knobs_file == dir + "/fitted.op-table.calibration.yaml");
  CHECK_FALSE(config::find_overlay(dir + "/child.yaml"));  // no roofline overlay of its own
  CHECK_THROWS_WITH(config::find_overlay(dir + "/misnamed.yaml", "op-table"),
                    Catch::Contains("calibration.fidelity") && Catch::Contains("found roofline"));
  CHECK_THROWS_WITH(
      config::find_overlay(dir + "/orphan.yaml", "op-table"),
      Catch::Contains("no overlay") && Catch::Contains("rooflineonly.op-table.calibration.yaml"));
  CHECK_THROWS_WITH(
      config::parse_overlay_string("calibration:\n  system: x\n  fidelity: cycle\n  knobs:\n"
                                   "    per_op_overhead: 1 us\n",
                                   "x.calibration.yaml"),
      Catch::Contains("expected roofline or op-table"));
  // The written overlay says its fidelity, and reads back as written.
  config::CalibrationOverlay written = *op_table;
  const auto back = config::parse_overlay_string(config::overlay_yaml(written), "back.yaml");
  CHECK(back.fidelity == "op-table");
  std::filesystem::remove_all(dir);
}
