// arch/area/*.yaml readers: located errors, overrides, and the shipped chips' die areas against
// their published figures (the error each is held to is stated in arch/area/chips.yaml and
// docs/area-cost.md).
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/base/error.hpp"
#include "sim/config/area_loader.hpp"
#include "sim/output/area_report.hpp"

using namespace scoville;

namespace {

config::DataPaths source_paths() { return config::DataPaths{SCOVILLE_SOURCE_DIR}; }

std::string first_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("area config: a value without its unit is refused with file line and key",
          "[area][config]") {
  const std::string yaml =
      "process_node:\n  name: x\n  logic_density: 138\n  sram_bitcell: 0.021 um^2\n"
      "  wafer_price: 100 USD\n  defect_density: 0.1 /cm^2\n";
  const std::string e = first_error([&] { config::parse_process_node_string(yaml, "n.yaml"); });
  CHECK_THAT(e, Catch::Contains("n.yaml:3"));
  CHECK_THAT(e, Catch::Contains("logic_density"));
  CHECK_THAT(e, Catch::Contains("MTr/mm^2"));
}

TEST_CASE("area config: units convert to SI and unknown keys are errors", "[area][config]") {
  const models::ProcessNode n = config::parse_process_node_string(
      "process_node:\n  name: x\n  logic_density: 100 MTr/mm^2\n  sram_bitcell: 0.02 um^2\n"
      "  wafer_price: 100 USD\n  defect_density: 0.1 /cm^2\n",
      "n.yaml");
  CHECK(n.logic_density == Approx(100e12));
  CHECK(n.sram_bitcell.si() == Approx(0.02e-12));
  CHECK(n.defect_density == Approx(1000));
  const std::string e = first_error([] {
    config::parse_cost_string("cost:\n  wafer_diameter: 300 mm\n  waffer: 1\n", "c.yaml");
  });
  CHECK_THAT(e, Catch::Contains("c.yaml:3"));
  CHECK_THAT(e, Catch::Contains("waffer"));
}

TEST_CASE("area config: --set changes the chip and an unknown section gets a suggestion",
          "[area][config]") {
  const auto base = config::load_area_inputs("h200", {}, source_paths());
  const auto more = config::load_area_inputs("h200", {{"tiles.count", "140"}}, source_paths());
  CHECK(more.chip.tiles.count == 140);
  CHECK(base.chip.tiles.count == 132);
  const auto io = config::load_area_inputs("h200", {{"area.compute_dies", "2"}}, source_paths());
  CHECK(io.profile.compute_dies == 2);
  const std::string e = first_error([] {
    config::load_area_inputs("h200", {{"tile.count", "140"}}, source_paths());
  });
  CHECK_THAT(e, Catch::Contains("unknown key 'tile'"));
  CHECK_THAT(e, Catch::Contains("did you mean 'tiles'"));
  const std::string bad_node = first_error([] {
    config::load_area_inputs("h200", {{"area.node", "tsmc-n1"}}, source_paths());
  });
  CHECK_THAT(bad_node, Catch::Contains("tsmc-n1"));
  CHECK_THAT(bad_node, Catch::Contains("tsmc-4n"));
}

// The validation: each shipped chip with a published die area stays within its stated error.
TEST_CASE("area validation: shipped dies within the stated error of published areas",
          "[area][validation]") {
  int checked = 0;
  for (const std::string chip :
       {"h100", "h200", "b200", "gb200", "b300", "gb300", "mi300x", "mi325x"}) {
    const auto in = config::load_area_inputs(chip, {}, source_paths());
    const output::AreaReport r = output::area_report(in, chip);
    REQUIRE(in.profile.stated_error > 0);
    for (const models::DieArea& d : r.area.dies) {
      if (d.published_per_die.si() <= 0) continue;
      const double error = d.per_die / d.published_per_die - 1.0;
      INFO(chip << " " << models::to_string(d.kind) << " die: model " << models::in_mm2(d.per_die)
                << " mm^2, published " << models::in_mm2(d.published_per_die) << " mm^2, error "
                << error);
      CHECK(std::fabs(error) <= in.profile.stated_error);
      ++checked;
    }
  }
  CHECK(checked >= 10);
}
