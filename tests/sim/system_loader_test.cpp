// System files: the shipped ones load, and bad ones give located errors.
#include <catch2/catch.hpp>

#include "sim/base/error.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/system_loader.hpp"

using namespace scoville;
using namespace scoville::config;

namespace {

std::string system_file(const std::string& name) {
  return std::string(SCOVILLE_SOURCE_DIR) + "/arch/systems/" + name + ".yaml";
}

const char* kSmall = R"(system:
  name: small
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

// A collective library without its optional parts (NVLS, all-pairs, custom kernels), appended
// to kSmall by the network.collectives tests.
const char* kLibrary = R"(    collectives:
      launch: 10 us
      protocols:
        LL: {per_step: 0.1 us, efficiency: 0.3}
        Simple: {per_step: 3 us, efficiency: 0.8}
      all_to_all: {latency: 8 us, per_peer: 0.3 us}
)";

// `text` with the first `from` replaced by `to` (a test's one broken field).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

}  // namespace

TEST_CASE("the shipped systems load with their chip counts", "[system]") {
  const SystemConfig nvl = parse_system(system_file("gb200-nvl72"));
  CHECK(build_network(nvl).endpoints() == 72);
  CHECK(nvl.network.link.bandwidth() == gigabytes_per_second(900));
  const SystemConfig j128 = parse_system(system_file("jalapeno-128"));
  CHECK(build_network(j128).endpoints() == 128);
  const SystemConfig j2048 = parse_system(system_file("jalapeno-2048"));
  const models::Topology t = build_network(j2048);
  CHECK(t.endpoints() == 2048);
  CHECK(t.domain_size() == 128);
  CHECK(t.endpoint_transitive());
}

TEST_CASE("the AMD Instinct platforms are full meshes of one link per GPU pair, no switch",
          "[system]") {
  for (const char* name : {"mi300x-8", "mi325x-8", "mi350x-8", "mi355x-8"}) {
    INFO(name);
    const SystemConfig s = parse_system(system_file(name));
    const models::Topology t = build_network(s);
    const int64_t n = t.endpoints();
    CHECK(n == 8);
    CHECK(t.switches() == 0);
    CHECK(static_cast<int64_t>(t.links().size()) == n * (n - 1));  // one per ordered pair
    CHECK(t.endpoint_transitive());
    // A link per peer carries what the chip file gives one of its ports (one port per peer).
    const models::ChipParams chip = load_chip(s.chip_file, DataPaths{SCOVILLE_SOURCE_DIR});
    CHECK(chip.ports.count == n - 1);
    for (const models::Link& l : t.links()) {
      CHECK(l.bandwidth.si() == Approx(chip.ports.bandwidth_per_port.si()));
    }
  }
}

TEST_CASE("a small system file parses and builds", "[system]") {
  const SystemConfig s = parse_system_string(kSmall, "small.yaml");
  CHECK(s.name == "small");
  CHECK(s.network.kind == "torus2d");
  CHECK(s.network.link.bandwidth() == gigabytes_per_second(100));
  CHECK_THAT(dump_system(s), Catch::Contains("endpoint_transitive: true"));
}

TEST_CASE("system file errors name the file, line and key", "[system]") {
  std::string typo = kSmall;
  typo.replace(typo.find("lanes"), 5, "lanez");
  const std::string e1 = first_error(typo);
  CHECK_THAT(e1, Catch::Contains("bad.yaml:8"));
  CHECK_THAT(e1, Catch::Contains("lanes"));

  std::string topology = kSmall;
  topology.replace(topology.find("torus2d"), 7, "torus9d");
  CHECK_THAT(first_error(topology), Catch::Contains("torus3d"));

  std::string dims = kSmall;
  dims.replace(dims.find("[4, 4]"), 6, "[4, 5]");
  const std::string e3 = first_error(dims);
  CHECK_THAT(e3, Catch::Contains("bad.yaml:7"));
  CHECK_THAT(e3, Catch::Contains("system.network.local.dims"));

  std::string unit = kSmall;
  unit.replace(unit.find("100 ns"), 6, "100 GB");
  CHECK_THAT(first_error(unit), Catch::Contains("latency"));
}

TEST_CASE("a rail-optimised fabric that cannot hold the domains is reported", "[system]") {
  const std::string yaml = std::string(kSmall) + R"(    scale_out:
      domains: 3
      topology: fat_tree
      rail_optimised: true
      link: {bandwidth_per_lane: 100 GB/s, latency: 100 ns, energy: 5 pJ/bit}
      switch: {radix: 16, port_bandwidth: 100 GB/s, latency: 500 ns, energy: 10 pJ/bit}
      nic: {bandwidth: 50 GB/s, latency: 1 us, energy: 6 pJ/bit}
)";
  const std::string e = first_error(yaml);
  CHECK_THAT(e, Catch::Contains("system.network.scale_out"));
}

TEST_CASE("every shipped system names its chip, count, host and software", "[system]") {
  const std::vector<std::string> names = DataPaths{SCOVILLE_SOURCE_DIR}.available("arch/systems");
  REQUIRE(names.size() >= 13);  // the NVIDIA, AMD and Jalapeno systems
  for (const std::string& name : names) {
    INFO(name);
    const SystemConfig s = parse_system(system_file(name));
    CHECK(s.chips == build_network(s).endpoints());
    CHECK_FALSE(s.chip_file.empty());
    CHECK(s.host.has_value());
    CHECK_FALSE(s.software_file.empty());
    CHECK_THAT(dump_system(s), Catch::Contains("chips_per_host"));
  }
}

TEST_CASE("a chip count that differs from the network is located", "[system]") {
  std::string yaml = kSmall;
  yaml.replace(yaml.find("  network:"), 0, "  chips: 12\n");
  const std::string e = first_error(yaml);
  CHECK_THAT(e, Catch::Contains("bad.yaml:3"));
  CHECK_THAT(e, Catch::Contains("16"));
}

TEST_CASE("an unknown chip or software profile lists the known ones", "[system]") {
  std::string chip = kSmall;
  chip.replace(chip.find("  network:"), 0, "  chip: h300\n");
  const std::string e = first_error(chip);
  CHECK_THAT(e, Catch::Contains("bad.yaml:3"));
  CHECK_THAT(e, Catch::Contains("h200"));
  std::string software = kSmall;
  software.replace(software.find("  network:"), 0, "  software: fast\n");
  CHECK_THAT(first_error(software), Catch::Contains("gpu-cuda-graphs"));
  std::string host = kSmall;
  host.replace(
      host.find("  network:"), 0,
      "  host: {link: {bandwidth: 1 GB/s, latency: 1 us, energy: 1 pJ/bit}, chips_per_host: 2}\n");
  CHECK_THAT(first_error(host), Catch::Contains("system.host.memory"));
}

TEST_CASE("a system without a chip cannot run iterations", "[system]") {
  const SystemConfig s = parse_system_string(kSmall, "small.yaml");
  CHECK_THROWS_AS(require_chip(s), InputError);
  CHECK(s.chips == 16);
}

TEST_CASE("network.collectives reads the collective library onto the topology", "[system]") {
  const std::string text =
      std::string(kSmall) + kLibrary + "      nvls: {latency: 18 us, efficiency: 0.85}\n";
  const SystemConfig sys = parse_system_string(text, "lib.yaml");
  REQUIRE(sys.collectives.has_value());
  CHECK(sys.collectives->launch == microseconds(10));
  REQUIRE(sys.collectives->protocols.size() == 2);
  CHECK(sys.collectives->protocols[1].name == "Simple");
  CHECK(sys.collectives->protocols[1].efficiency == Approx(0.8));
  CHECK(sys.collectives->nvls.has_value());
  CHECK_FALSE(sys.collectives->custom_all_reduce.has_value());
  CHECK(build_network(sys).collective_library().has_value());
  // `scoville config dump` shows it.
  const std::string dump = dump_system(sys);
  CHECK_THAT(dump, Catch::Contains("collectives"));
  CHECK_THAT(dump, Catch::Contains("nvls"));
  // Without the section: the wire alone.
  CHECK_FALSE(build_network(parse_system_string(kSmall, "small.yaml")).collective_library());
  // A protocol NCCL does not have, and a missing field, are located errors.
  CHECK_THAT(first_error(replaced(text, "LL:", "XL:")), Catch::Contains("unknown protocol 'XL'"));
  CHECK_THAT(first_error(replaced(text, ", per_peer: 0.3 us", "")), Catch::Contains("per_peer"));
}

TEST_CASE("network.collectives.all_pairs is read, dumped and range-checked", "[system]") {
  const std::string text =
      std::string(kSmall) + kLibrary + "      all_pairs: {latency: 71 us, efficiency: 0.71}\n";
  const SystemConfig sys = parse_system_string(text, "lib.yaml");
  REQUIRE(sys.collectives.has_value());
  REQUIRE(sys.collectives->all_pairs.has_value());
  CHECK(sys.collectives->all_pairs->latency == microseconds(71));
  CHECK(sys.collectives->all_pairs->efficiency == Approx(0.71));
  CHECK_THAT(dump_system(sys), Catch::Contains("all_pairs"));
  // An efficiency above 1 and a latency without a unit are located errors.
  CHECK_THAT(first_error(replaced(text, "0.71", "1.50")), Catch::Contains("efficiency"));
  CHECK_THAT(first_error(replaced(text, "71 us", "71")), Catch::Contains("latency"));
}
