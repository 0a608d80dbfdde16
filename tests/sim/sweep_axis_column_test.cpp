// Sweep axis columns in sweep.h5's /points: numbers as numbers (sorted by value, not as text),
// quantities in SI with their unit, names as text.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "sim/sweep/axis_column.hpp"
#include "sim/sweep/sweep_config.hpp"

namespace scoville::sweep {
namespace {

// The values of axis `a` over the points of a sweep file, as sweep_index reads them.
std::vector<std::string> axis_values(const std::string& axes, size_t a) {
  const std::string text =
      "sweep:\n  study: {chips: [h200], model: llama-3.1-8b, batch: 1, isl: 128, osl: 4, seed: "
      "1}\n  axes:\n" +
      axes;
  std::vector<std::string> values;
  for (const SweepPoint& p : expand_points(parse_sweep_string(text, "t.yaml"))) {
    values.push_back(p.assignments[a].second);
  }
  return values;
}

}  // namespace

TEST_CASE("an integer axis is stored as 64-bit integers and sorts by value", "[sweep][axis]") {
  const output::Column c = axis_column(
      "study.batch", axis_values("    - {key: study.batch, values: [1, 16, 4, 64]}\n", 0));
  REQUIRE(std::holds_alternative<std::vector<int64_t>>(c.values));
  std::vector<int64_t> v = std::get<std::vector<int64_t>>(c.values);
  CHECK(v == std::vector<int64_t>{1, 16, 4, 64});
  std::sort(v.begin(), v.end());
  CHECK(v == std::vector<int64_t>{1, 4, 16, 64});
  CHECK(c.units == "1");
  CHECK(c.name == "study.batch");
}

TEST_CASE("a fractional axis is stored as floats", "[sweep][axis]") {
  const output::Column c = axis_column("x", {"0.5", "1", "2.25"});
  REQUIRE(std::holds_alternative<std::vector<double>>(c.values));
  CHECK(std::get<std::vector<double>>(c.values) == std::vector<double>{0.5, 1.0, 2.25});
  CHECK(c.units == "1");
}

TEST_CASE("an axis of quantities is stored in SI with its unit", "[sweep][axis]") {
  // A quantity axis's values, as flow YAML writes them in a point's assignments.
  const output::Column c = axis_column("chip.hbm.bandwidth", {"4 TB/s", "800 GB/s"});
  REQUIRE(std::holds_alternative<std::vector<double>>(c.values));
  CHECK(std::get<std::vector<double>>(c.values) == std::vector<double>{4e12, 8e11});
  CHECK(c.units == "B/s");
  // Quantities of two dimensions are not one column of numbers.
  const output::Column mixed = axis_column("m", {"4 TB/s", "700 W"});
  CHECK(std::holds_alternative<std::vector<std::string>>(mixed.values));
}

TEST_CASE("names and mixed axes stay text", "[sweep][axis]") {
  const output::Column names = axis_column("study.chips", {"[h200]", "[b200]"});
  REQUIRE(std::holds_alternative<std::vector<std::string>>(names.values));
  CHECK(names.units.empty());
  const output::Column mixed = axis_column("k", {"1", "local"});
  CHECK(std::holds_alternative<std::vector<std::string>>(mixed.values));
  const output::Column not_finite = axis_column("k", {"1", ".nan"});
  CHECK(std::holds_alternative<std::vector<std::string>>(not_finite.values));
}

}  // namespace scoville::sweep
