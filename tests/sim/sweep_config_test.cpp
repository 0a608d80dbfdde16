// Sweep files expand into points as documented: order, zip, ranges, stable ids, and one clear
// error per bad input.
#include <catch2/catch.hpp>

#include <set>

#include "sim/base/error.hpp"
#include "sim/sweep/sweep_config.hpp"

namespace scoville::sweep {

namespace {

const std::string kBase =
    "  study: {chips: [h200], model: llama-3.1-8b, batch: 1, isl: 128, osl: 4, seed: 1}\n";

std::vector<SweepPoint> expand(const std::string& axes, const std::string& extra = "") {
  return expand_points(
      parse_sweep_string("sweep:\n" + kBase + extra + "  axes:\n" + axes, "t.yaml"));
}

std::string error_of(const std::string& text) {
  try {
    expand_points(parse_sweep_string(text, "t.yaml"));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("cartesian sweeps run the last axis fastest", "[sweep]") {
  const std::vector<std::string> chips = {"[h200]", "[jalapeno]"};
  const std::vector<std::string> batches = {"1", "2", "3"};
  const auto points = expand(
      "    - {key: study.chips, values: [[h200], [jalapeno]]}\n"
      "    - {key: study.batch, values: [1, 2, 3]}\n");
  REQUIRE(points.size() == chips.size() * batches.size());
  for (size_t i = 0; i < points.size(); ++i) {
    CHECK(points[i].index == static_cast<int64_t>(i));
    CHECK(points[i].assignments[0].second == chips[i / batches.size()]);
    CHECK(points[i].assignments[1].second == batches[i % batches.size()]);
  }
  CHECK(points[4].study_yaml.find("jalapeno") != std::string::npos);
}

TEST_CASE("zip pairs axes value by value and needs equal lengths", "[sweep]") {
  const auto points = expand(
      "    - {key: study.batch, values: [1, 2]}\n"
      "    - {key: study.isl, values: [128, 256]}\n",
      "  combine: zip\n");
  REQUIRE(points.size() == 2);
  CHECK(points[1].assignments[0].second == "2");
  CHECK(points[1].assignments[1].second == "256");
  const std::string e = error_of("sweep:\n" + kBase +
                                 "  combine: zip\n  axes:\n"
                                 "    - {key: study.batch, values: [1, 2]}\n"
                                 "    - {key: study.isl, values: [128]}\n");
  CHECK_THAT(e, Catch::Contains("equal length"));
}

TEST_CASE("ranges expand arithmetically or geometrically, keeping units", "[sweep]") {
  const auto geometric =
      expand("    - key: study.batch\n      range: {from: 1, to: 64, factor: 4}\n");
  std::vector<std::string> expected;
  for (int b = 1; b <= 64; b *= 4) expected.push_back(std::to_string(b));
  REQUIRE(geometric.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    CHECK(geometric[i].assignments[0].second == expected[i]);

  const SweepConfig with_units =
      parse_sweep_string("sweep:\n" + kBase +
                             "  axes:\n    - key: chip.hbm.bandwidth\n"
                             "      range: {from: 1 TB/s, to: 2 TB/s, step: 0.25 TB/s}\n",
                         "t.yaml");
  const std::vector<std::string> bandwidths = {"1 TB/s", "1.25 TB/s", "1.5 TB/s", "1.75 TB/s",
                                               "2 TB/s"};
  REQUIRE(with_units.axes[0].values.size() == bandwidths.size());
  for (size_t i = 0; i < bandwidths.size(); ++i) {
    CHECK(with_units.axes[0].values[i].Scalar() == bandwidths[i]);
  }
  CHECK_THAT(error_of("sweep:\n" + kBase +
                      "  axes:\n    - key: study.batch\n"
                      "      range: {from: 1 TB/s, to: 2 GHz, step: 1 TB/s}\n"),
             Catch::Contains("same unit"));
  CHECK_THAT(error_of("sweep:\n" + kBase +
                      "  axes:\n    - key: study.batch\n"
                      "      range: {from: 1, to: 8}\n"),
             Catch::Contains("exactly one of step"));
}

// Found by fuzzing (tests/regressions/sweep/): a geometric range from 0 never grew and ran to the
// point limit before failing. Ranges are now counted before any value is made.
TEST_CASE("a range is counted before it is expanded", "[sweep]") {
  const auto range = [](const std::string& r) {
    return error_of("sweep:\n" + kBase + "  axes:\n    - key: study.batch\n      range: " + r +
                    "\n");
  };
  CHECK_THAT(range("{from: 0, to: 64, factor: 4}"),
             Catch::Contains("range.from") && Catch::Contains("expected from > 0"));
  CHECK_THAT(range("{from: -1, to: 64, factor: 2}"), Catch::Contains("expected from > 0"));
  CHECK_THAT(range("{from: 1, to: 1000000000, step: 1}"),
             Catch::Contains("expands to more than " + std::to_string(kMaxPoints) + " values"));
  CHECK_THAT(range("{from: 1, to: 1e300, factor: 1.0000001}"),
             Catch::Contains("expands to more than"));
  // A step lost in rounding at the start still gives the one value the range has.
  const SweepConfig flat = parse_sweep_string(
      "sweep:\n" + kBase +
          "  axes:\n    - key: study.batch\n      range: {from: 1e20, to: 1e20, step: 1}\n",
      "t.yaml");
  CHECK(flat.axes[0].values.size() == 1);
  // Arithmetic ranges with fractional steps still land on `to`.
  const SweepConfig tenths = parse_sweep_string(
      "sweep:\n" + kBase +
          "  axes:\n    - key: study.batch\n      range: {from: 0.1, to: 1, step: 0.1}\n",
      "t.yaml");
  CHECK(tenths.axes[0].values.size() == 10);
}

TEST_CASE("point ids are stable, order-free and distinct", "[sweep]") {
  const auto a =
      expand("    - {key: study.batch, values: [1, 2]}\n    - {key: study.isl, values: [128]}\n");
  const auto b =
      expand("    - {key: study.isl, values: [128]}\n    - {key: study.batch, values: [2, 1]}\n");
  CHECK(a[0].id == b[1].id);
  CHECK(a[1].id == b[0].id);
  CHECK(a[0].id != a[1].id);
  CHECK(a[0].id.size() == 12);
}

TEST_CASE("bad sweeps give one clear error each", "[sweep]") {
  CHECK_THAT(error_of("sweep:\n" + kBase + "  axes: []\n"), Catch::Contains("non-empty list"));
  CHECK_THAT(error_of("sweep:\n" + kBase +
                      "  combine: diagonal\n  axes:\n"
                      "    - {key: study.batch, values: [1]}\n"),
             Catch::Contains("combine"));
  CHECK_THAT(error_of("sweep:\n" + kBase + "  axes:\n    - {key: study.batch}\n"),
             Catch::Contains("missing values or range"));
  CHECK_THAT(error_of("sweep:\n  axes:\n    - {key: study.batch, values: [1]}\n"),
             Catch::Contains("base study"));
  // A value the study schema refuses names the point and the axis value.
  const std::string e =
      error_of("sweep:\n" + kBase + "  axes:\n    - {key: study.batch, values: [1, 0]}\n");
  CHECK_THAT(e, Catch::Contains("study.batch=0"));
  CHECK_THAT(e, Catch::Contains("batch"));
  // An axis into something that is not a map.
  CHECK_THAT(error_of("sweep:\n" + kBase + "  axes:\n    - {key: study.model.name, values: [x]}\n"),
             Catch::Contains("not a map"));
}

TEST_CASE("a cartesian product beyond the point limit is refused before expansion", "[sweep]") {
  std::string axes;
  // Each axis has 101 values; three axes give 101^3 = 1,030,301 > kMaxPoints.
  for (const char* key : {"study.batch", "study.isl", "study.osl"}) {
    axes += std::string("    - key: ") + key + "\n      range: {from: 1, to: 101, step: 1}\n";
  }
  const int64_t product = 101LL * 101 * 101;
  REQUIRE(product > kMaxPoints);
  CHECK_THAT(error_of("sweep:\n" + kBase + "  axes:\n" + axes), Catch::Contains("split the sweep"));
}

}  // namespace scoville::sweep

namespace scoville::sweep {

namespace {

const std::string kScenario =
    "  scenario:\n"
    "    system: {chip: h200, chips: 1}\n"
    "    model: llama-3.1-8b\n"
    "    mapping: {default: {chips: 1, tp: 1}}\n"
    "    requests: {pattern: closed_loop, isl: 64, osl: 8, concurrency: 1, num_prompts: 4}\n";

}  // namespace

TEST_CASE("a sweep over a scenario expands into scenario points", "[sweep]") {
  const SweepConfig sweep = parse_sweep_string(
      "sweep:\n" + kScenario +
          "  axes:\n    - {key: scenario.requests.concurrency, values: [1, 4]}\n",
      "t.yaml");
  CHECK(sweep.kind == PointKind::kScenario);
  const std::vector<SweepPoint> points = expand_points(sweep);
  REQUIRE(points.size() == 2);
  CHECK(points[0].kind == PointKind::kScenario);
  CHECK_THAT(points[1].study_yaml, Catch::Contains("concurrency: 4"));
  CHECK_THAT(points[1].study_yaml, Catch::StartsWith("scenario:"));
  // A value the scenario schema refuses is reported before anything runs, naming the point.
  const std::string e =
      error_of("sweep:\n" + kScenario +
               "  axes:\n    - {key: scenario.requests.concurrency, values: [0]}\n");
  CHECK_THAT(e, Catch::Contains("scenario.requests.concurrency=0"));
  CHECK_THAT(e, Catch::Contains("concurrency"));
  // One base only.
  CHECK_THAT(
      error_of("sweep:\n" + kBase + kScenario + "  axes:\n    - {key: study.batch, values: [1]}\n"),
      Catch::Contains("one base"));
}

TEST_CASE("a sweep over system keys checks each point's study", "[sweep][system]") {
  const std::string base =
      "  study: {system: h200-hgx8, model: llama-3.1-8b, batch: 2, isl: 64, osl: 4}\n";
  const std::vector<SweepPoint> points = expand_points(
      parse_sweep_string("sweep:\n" + base +
                             "  axes:\n    - {key: study.kv_placement, values: [local, striped]}\n"
                             "    - {key: study.mapping.tp, values: [2, 4]}\n",
                         "t.yaml"));
  REQUIRE(points.size() == 4);
  CHECK(points[0].kind == PointKind::kStudy);
  CHECK_THAT(points[3].study_yaml, Catch::Contains("kv_placement: striped"));
  CHECK_THAT(points[3].study_yaml, Catch::Contains("tp: 4"));
  const std::string e =
      error_of("sweep:\n" + base + "  axes:\n    - {key: study.kv_placement, values: [nowhere]}\n");
  CHECK_THAT(e, Catch::Contains("study.kv_placement=nowhere"));
  CHECK_THAT(e, Catch::Contains("unknown KV placement"));
}

}  // namespace scoville::sweep
