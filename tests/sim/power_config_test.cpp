// Power configuration readers: a chip's `power_management:` section and a system's `power:`
// section (docs/power.md), and the all-in power arithmetic built on the latter.
#include <catch2/catch.hpp>

#include <string>

#include "models/power/system_power.hpp"
#include "sim/base/error.hpp"
#include "sim/base/yaml_reader.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/system_power_loader.hpp"

using namespace scoville;

namespace {

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

const char* kSystemPower = R"(power:
  hosts: {count: 9, power: 4.6 kW}
  nics: {count: 72, power: 25 W}
  switches: {count: 4, power: 2 kW}
  other_it: 0.1
  pue: 1.3
)";

}  // namespace

TEST_CASE("system power: all-in power per chip and tokens per provisioned MW", "[power]") {
  const models::SystemPowerParams p = config::parse_system_power_string(kSystemPower, "<test>");
  CHECK(p.hosts.count == 9);
  CHECK(p.memory_pools.count == 0);
  const int64_t chips = 72;
  const Power tdp(700);
  const models::AllInPower a = models::all_in_power(p, chips, tdp);
  const double infrastructure = 9 * 4600.0 + 72 * 25.0 + 4 * 2000.0;
  const double expected = (chips * 700.0 + infrastructure) * (1 + 0.1) * 1.3 / chips;
  CHECK(a.infrastructure.si() == Approx(infrastructure));
  CHECK(a.per_chip.si() == Approx(expected));
  CHECK(a.ratio_to_chip == Approx(expected / 700.0));
  // InferenceX: tpPerMw = tput_per_gpu x 1000 / power_kW_per_GPU.
  const double tput = 1234.5;
  CHECK(models::tokens_per_second_per_megawatt(tput, a.per_chip) ==
        Approx(tput * 1000 / (expected / 1000)));
  CHECK(models::all_in_energy_per_token(tput, a.per_chip).si() == Approx(expected / tput));
  // A bare chip in a PUE-1 facility is its own all-in power.
  models::SystemPowerParams bare;
  CHECK(models::all_in_power(bare, 8, tdp).per_chip == tdp);
}

TEST_CASE("system power: bad input names file, line and key", "[power]") {
  const std::string low_pue =
      error_of([] { config::parse_system_power_string("power:\n  pue: 0.9\n", "sys.yaml"); });
  CHECK_THAT(low_pue, Catch::Contains("sys.yaml:2") && Catch::Contains("power.pue"));
  const std::string typo = error_of([] {
    config::parse_system_power_string("power:\n  pue: 1.2\n  swiches: {count: 1, power: 1 kW}\n",
                                      "sys.yaml");
  });
  CHECK_THAT(typo, Catch::Contains("sys.yaml:3") && Catch::Contains("switches"));
  const std::string unit = error_of([] {
    config::parse_system_power_string("power:\n  pue: 1.2\n  hosts: {count: 1, power: 1 kJ}\n",
                                      "sys.yaml");
  });
  CHECK_THAT(unit, Catch::Contains("power.hosts.power") && Catch::Contains("a power"));
}

TEST_CASE("chip power_management: the shipped chips carry operating points", "[power]") {
  const config::DataPaths paths = config::DataPaths{SCOVILLE_SOURCE_DIR};
  for (const char* name : {"h200", "jalapeno"}) {
    const models::ChipParams chip = config::load_chip(name, paths);
    INFO(name);
    const models::PowerManagementParams& pm = chip.power.management;
    REQUIRE(pm.present);
    CHECK(pm.points.back().frequency == chip.tiles.clock);
    CHECK(pm.cap == chip.power.tdp);  // the default
    CHECK(pm.time_constant.si() > 0);
  }
}

TEST_CASE("chip power_management: bad input names file, line and key", "[power]") {
  const std::string base =
      read_text_file(std::string(SCOVILLE_SOURCE_DIR) + "/arch/chips/h200.yaml");
  auto with = [&](const std::string& from, const std::string& to) {
    std::string text = base;
    const size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    return error_of([&] { config::parse_chip_string(text, "chip.yaml"); });
  };
  CHECK_THAT(
      with("{frequency: 1.83 GHz, voltage: 0.90 V}", "{frequency: 1.9 GHz, voltage: 0.90 V}"),
      Catch::Contains("chip.yaml:") && Catch::Contains("power_management.points") &&
          Catch::Contains("tile clock"));
  CHECK_THAT(
      with("{frequency: 1.275 GHz, voltage: 0.78 V}", "{frequency: 0.7 GHz, voltage: 0.78 V}"),
      Catch::Contains("power_management.points[1].frequency") && Catch::Contains("ascending"));
  CHECK_THAT(with("voltage: 0.78 V", "voltage: 0.78 W"),
             Catch::Contains("power_management.points[1].voltage") && Catch::Contains("a voltage"));
  CHECK_THAT(with("frequency_step: 15 MHz", "frequency_step: 1 Hz"),
             Catch::Contains("power_management.frequency_step") && Catch::Contains("coarser"));
  CHECK_THAT(with("time_constant: 10 ms", "time_constant: 0 s"),
             Catch::Contains("power_management.time_constant"));
}

TEST_CASE("an energy table may price the chip's side of each HBM bit", "[power][config]") {
  // hbm_phy and hbm_cache are optional (0: not priced, the tables that predate them); negative
  // values are refused at their key. The shipped NVIDIA tables give both (docs/power.md).
  const std::string base = R"(energy:
  name: t
  mac: {bf16: 0.8 pJ, fp8: 0.62 pJ, fp4: 0.25 pJ}
  vector_flop: 1.5 pJ
  tile_sram: 0.15 pJ/bit
  shared_sram: 0.6 pJ/bit
  noc: 0.3 pJ/bit
  hbm: 3.9 pJ/bit
  link: 5.5 pJ/bit
)";
  const models::EnergyTable plain = config::parse_energy_string(base, "t.yaml");
  CHECK(plain.hbm_phy.si() == 0.0);
  CHECK(plain.hbm_cache.si() == 0.0);
  const models::EnergyTable gpu = config::parse_energy_string(
      base + "  hbm_phy: 0.29 pJ/bit\n  hbm_cache: 1.2 pJ/bit\n", "t.yaml");
  CHECK(gpu.hbm_phy.si() == Approx(0.29e-12));
  CHECK(gpu.hbm_cache.si() == Approx(1.2e-12));
  const std::string bad =
      error_of([&] { config::parse_energy_string(base + "  hbm_cache: -1 pJ/bit\n", "t.yaml"); });
  CHECK(bad.find("hbm_cache") != std::string::npos);
  // The shipped H100 table carries both.
  const models::EnergyTable h100 =
      config::parse_energy(std::string(SCOVILLE_SOURCE_DIR) + "/arch/energy/tsmc-4n.yaml");
  CHECK(h100.hbm_phy.si() == Approx(0.29e-12));
  CHECK(h100.hbm_cache.si() == Approx(1.2e-12));
}
