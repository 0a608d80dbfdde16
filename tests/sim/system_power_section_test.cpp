// The `power:` section of system files: the shipped ones load and reproduce InferenceX's all-in
// provisioned kW per GPU where REFERENCE.md gives it; bad values give located errors.
#include <catch2/catch.hpp>

#include <string>

#include "models/power/system_power.hpp"
#include "sim/base/error.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/system_loader.hpp"

using namespace scoville;
using namespace scoville::config;

namespace {

std::string system_file(const std::string& name) {
  return std::string(SCOVILLE_SOURCE_DIR) + "/arch/systems/" + name + ".yaml";
}

// All-in provisioned W per chip of a shipped system, with its chip's TDP.
double all_in_w(const std::string& name) {
  const SystemConfig s = parse_system(system_file(name));
  REQUIRE(s.power);
  const models::ChipParams chip = parse_chip(s.chip_file).params;
  return models::all_in_power(*s.power, s.chips, chip.power.tdp).per_chip.si();
}

const char* kSystem = R"(system:
  name: small
  power:
    hosts: {count: 2, power: 1 kW}
    switches: {count: 1, power: 500 W}
    pue: 1.25
  network:
    local:
      size: 16
      topology: torus2d
      dims: [4, 4]
      link: {lanes: 2, bandwidth_per_lane: 50 GB/s, latency: 100 ns, energy: 2 pJ/bit}
)";

std::string first_error(const std::string& yaml) {
  try {
    parse_system_string(yaml, "bad.yaml");
  } catch (const InputError& e) {
    return e.diagnostics().front().str();
  }
  return "no error";
}

}  // namespace

TEST_CASE("every shipped system file has a power section", "[system][power]") {
  for (const char* name : {"b200-hgx8", "b200-multinode", "gb200-nvl72", "gb300-nvl72", "h200-hgx8",
                           "jalapeno-128", "jalapeno-2048"}) {
    INFO(name);
    const SystemConfig s = parse_system(system_file(name));
    REQUIRE(s.power);
    CHECK(s.power->pue >= 1.0);
  }
}

TEST_CASE("shipped systems give InferenceX's all-in kW per GPU within 2%", "[system][power]") {
  // REFERENCE.md, InferenceX metric definitions (constants.ts): H200 1.73, B200 2.17, GB200 2.10.
  CHECK(all_in_w("h200-hgx8") == Approx(1730.0).epsilon(0.02));
  CHECK(all_in_w("b200-hgx8") == Approx(2170.0).epsilon(0.02));
  CHECK(all_in_w("gb200-nvl72") == Approx(2100.0).epsilon(0.02));
  // Six HGX boards with each board's parts: a board's all-in share per GPU.
  CHECK(all_in_w("b200-multinode") == Approx(all_in_w("b200-hgx8")).epsilon(1e-9));
}

TEST_CASE("a system power section parses into the all-in model", "[system][power]") {
  const SystemConfig s = parse_system_string(kSystem, "small.yaml");
  REQUIRE(s.power);
  CHECK(s.power->hosts.count == 2);
  CHECK(s.power->hosts.power.si() == 1000.0);
  CHECK(s.power->switches.total().si() == 500.0);
  CHECK(s.power->nics.count == 0);
  // (16 x 700 + 2,000 + 500) x 1.25 / 16
  const models::AllInPower a = models::all_in_power(*s.power, s.chips, watts(700));
  CHECK(a.per_chip.si() == Approx((16 * 700.0 + 2500.0) * 1.25 / 16));
  CHECK_THAT(dump_system(s), Catch::Contains("pue: 1.25"));
}

TEST_CASE("bad system power values name the file, line and key", "[system][power]") {
  std::string pue = kSystem;
  pue.replace(pue.find("1.25"), 4, "0.8");
  CHECK_THAT(first_error(pue), Catch::Contains("bad.yaml:6") && Catch::Contains("power.pue"));
  std::string unit = kSystem;
  unit.replace(unit.find("1 kW"), 4, "1 kJ");
  CHECK_THAT(first_error(unit),
             Catch::Contains("bad.yaml:4") && Catch::Contains("power.hosts.power"));
  std::string key = kSystem;
  key.replace(key.find("switches"), 8, "swiches");
  CHECK_THAT(first_error(key), Catch::Contains("bad.yaml") && Catch::Contains("swiches"));
  std::string count = kSystem;
  count.replace(count.find("count: 2"), 8, "count: -1");
  CHECK_THAT(first_error(count), Catch::Contains("power.hosts.count"));
}
