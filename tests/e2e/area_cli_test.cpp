// `scoville area` as a user runs it: good and bad input, the change view, outputs, determinism.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "tests/e2e/test_support.hpp"

using scoville::test::run_scoville;

namespace {

double json_value(const std::string& json, const std::string& key) {
  const std::regex re("\"" + key + "\": ([-+0-9.eE]+)");
  std::smatch m;
  REQUIRE(std::regex_search(json, m, re));
  return std::stod(m[1].str());
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("scoville-area-" + name)).string();
}

}  // namespace

TEST_CASE("cli: area prints the area and cost breakdown of a shipped chip", "[cli][area]") {
  const auto r = run_scoville("area --chip h100");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("matrix engines"));
  CHECK_THAT(r.output, Catch::Contains("HBM PHYs"));
  CHECK_THAT(r.output, Catch::Contains("published 814 mm^2"));
  CHECK_THAT(r.output, Catch::Contains("2.5D packaging"));
  CHECK_THAT(r.output, Catch::Contains("total $"));
}

TEST_CASE("cli: area --set shows the change against the unchanged chip", "[cli][area]") {
  const auto base = run_scoville("area --chip h200 --json");
  const auto more = run_scoville("area --chip h200 --set tiles.count=150 --json");
  INFO(more.output);
  REQUIRE(base.exit_code == 0);
  REQUIRE(more.exit_code == 0);
  CHECK_THAT(more.output, Catch::Contains("\"base\""));
  // Past the die's 144 physical SMs the die grows.
  const auto tiles = run_scoville("area --chip h200 --set tiles.count=160 --json");
  REQUIRE(tiles.exit_code == 0);
  CHECK(json_value(tiles.output, "delta_silicon_mm2") > 0);
  CHECK(json_value(tiles.output, "delta_cost_usd") > 0);
  const auto text = run_scoville("area --chip h200 --set shared_sram.capacity=100MB");
  CHECK(text.exit_code == 0);
  CHECK_THAT(text.output, Catch::Contains("change: silicon"));
}

TEST_CASE("cli: area --compare prices one chip against another", "[cli][area]") {
  const auto r = run_scoville("area --chip b200 --compare h100");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("compared with h100"));
}

TEST_CASE("cli: area flags a die over the reticle", "[cli][area]") {
  const auto r = run_scoville("area --chip h200 --set area.physical_tiles=400");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("OVER RETICLE"));
  CHECK_THAT(r.output, Catch::Contains("exceeds the reticle limit"));
}

TEST_CASE("cli: area refuses bad input with a located message", "[cli][area]") {
  const auto missing = run_scoville("area");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Catch::Contains("--chip"));
  const auto unknown = run_scoville("area --chip h99");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.output, Catch::Contains("h100"));
  const auto bad_set = run_scoville("area --chip h200 --set tiles.count");
  CHECK(bad_set.exit_code == 2);
  const auto bad_value = run_scoville("area --chip h200 --set cost.hbm_per_gb=15");
  CHECK(bad_value.exit_code == 2);
  CHECK_THAT(bad_value.output, Catch::Contains("hbm_per_gb"));
  CHECK_THAT(bad_value.output, Catch::Contains("USD/GB"));
  const auto bad_out = run_scoville("area --chip h200 -o out.txt");
  CHECK(bad_out.exit_code == 2);
}

TEST_CASE("cli: area writes CSV and HDF5 and is deterministic", "[cli][area]") {
  const std::string csv = temp_path("a.csv");
  const std::string csv2 = temp_path("b.csv");
  const std::string h5 = temp_path("a.h5");
  REQUIRE(run_scoville("area --chip mi300x -o " + csv).exit_code == 0);
  REQUIRE(run_scoville("area --chip mi300x -o " + csv2).exit_code == 0);
  REQUIRE(run_scoville("area --chip mi300x --set tiles.count=300 -o " + h5).exit_code == 0);
  const auto read = [](const std::string& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  const std::string a = read(csv);
  CHECK_THAT(a, Catch::StartsWith("variant,kind,item,die,unit,count,per_unit,total"));
  CHECK_THAT(a, Catch::Contains("cost_usd"));
  CHECK(a == read(csv2));
  CHECK(std::filesystem::file_size(h5) > 0);
  std::filesystem::remove(csv);
  std::filesystem::remove(csv2);
  std::filesystem::remove(h5);
}
