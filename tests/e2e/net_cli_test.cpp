// `scoville net` as a user runs it.
#include <catch2/catch.hpp>

#include <regex>

#include "sim/config/data_paths.hpp"
#include "sim/config/system_loader.hpp"
#include "tests/e2e/test_support.hpp"

using scoville::test::run_scoville;
using scoville::test::source_dir;

namespace {

// The value of `"key": number` in the i-th result object of `scoville net --json`.
double json_number(const std::string& json, const std::string& key, size_t index) {
  const std::regex re("\"" + key + "\": ([-+0-9.eE]+)");
  auto it = std::sregex_iterator(json.begin(), json.end(), re);
  for (size_t i = 0; i < index && it != std::sregex_iterator(); ++i) ++it;
  REQUIRE(it != std::sregex_iterator());
  return std::stod((*it)[1].str());
}

}  // namespace

TEST_CASE("cli: net prints an nccl-tests style table for NVL72", "[cli][network]") {
  const auto r =
      run_scoville("net --system gb200-nvl72 --collective all_reduce --bytes 8B,1MiB,1GiB");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("busbw(GB/s)"));
  CHECK_THAT(r.output, Catch::Contains("1073741824"));
  CHECK_THAT(r.output, Catch::Contains("72 ranks"));
}

TEST_CASE("cli: net ring all-reduce on NVL72 equals the alpha-beta closed form", "[cli][network]") {
  const scoville::config::SystemConfig sys =
      scoville::config::parse_system(source_dir() + "/arch/systems/gb200-nvl72.yaml");
  const auto& s = sys.network;
  const double alpha = (2 * s.link.latency + s.switch_params->latency).si();
  const double B = std::min(s.link.bandwidth(), s.switch_params->port_bandwidth).si();
  const double n = static_cast<double>(s.endpoints);
  const auto r = run_scoville(
      "net --system gb200-nvl72 --collective all_reduce --algorithm ring --bytes 8B,64MiB --json");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  for (size_t i = 0; i < 2; ++i) {
    // The wire part: the closed form over the protocol's wire bytes (S / efficiency); the
    // collective library adds its launch and per-step handshakes on top (library_s).
    const double S = json_number(r.output, "bytes", i);
    const double efficiency = json_number(r.output, "wire_efficiency", i);
    const double wire = 2 * (n - 1) * (alpha + S / efficiency / n / B);
    const double time = json_number(r.output, "time_s", i);
    CHECK(time - json_number(r.output, "library_s", i) == Approx(wire).epsilon(0.01));
    CHECK(json_number(r.output, "busbw_GBps", i) ==
          Approx(S / time * 2 * (n - 1) / n / 1e9).epsilon(0.01));
  }
}

TEST_CASE("cli: net prices an 8-byte all-reduce with the collective library, not the wire alone",
          "[cli][network]") {
  // The idealised wire model gave about 1.1 us here (docs/network.md); NCCL measures 15-20 us.
  // Expected: the system file's launch + the ring's 14 steps x (LL handshake + hop) + the wire.
  const scoville::config::SystemConfig sys =
      scoville::config::parse_system(source_dir() + "/arch/systems/h200-hgx8.yaml");
  REQUIRE(sys.collectives.has_value());
  const auto& s = sys.network;
  const double alpha = (2 * s.link.latency + s.switch_params->latency).si();
  const double B = std::min(s.link.bandwidth(), s.switch_params->port_bandwidth).si();
  const scoville::models::ProtocolParams* ll = nullptr;
  for (const auto& p : sys.collectives->protocols) {
    if (p.name == "LL") ll = &p;
  }
  REQUIRE(ll != nullptr);
  const double steps = 14;
  const double expected = sys.collectives->launch.si() + steps * (ll->per_step.si() + alpha) +
                          steps * 8.0 / 8.0 / (B * ll->efficiency);
  const auto r =
      run_scoville("net --system h200-hgx8 --collective all_reduce --bytes 8B --nccl-only --json");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.output, "time_s", 0) == Approx(expected).epsilon(1e-6));
  CHECK(json_number(r.output, "time_s", 0) > 10e-6);
  CHECK_THAT(r.output, Catch::Contains("\"algorithm\": \"ring\", \"protocol\": \"LL\""));
  // The table names the choice.
  const auto table =
      run_scoville("net --system h200-hgx8 --collective all_reduce --bytes 8B,64MiB --nccl-only");
  CHECK_THAT(table.output, Catch::Contains("ring/LL"));
  CHECK_THAT(table.output, Catch::Contains("nvls"));
}

TEST_CASE("cli: net all-to-all over 2,048 chips uses the symmetric reduction", "[cli][network]") {
  const auto r =
      run_scoville("net --system jalapeno-2048 --collective all_to_all --bytes 64MiB --json");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("\"symmetric\": true"));
  CHECK(json_number(r.output, "simulated_flows", 0) == 2047);
  CHECK(json_number(r.output, "flows", 0) == 2048.0 * 2047.0);
}

TEST_CASE("cli: net is deterministic", "[cli][network]") {
  const std::string args =
      "net --system jalapeno-128 --collective all_reduce --bytes 8B,4MiB --json";
  const auto a = run_scoville(args), b = run_scoville(args);
  CHECK(a.exit_code == 0);
  CHECK(a.output == b.output);
}

TEST_CASE("cli: net reports bad input with exit code 2", "[cli][network]") {
  const std::string base = "net --system gb200-nvl72 ";
  const auto unknown = run_scoville(base + "--collective all_mix --bytes 1MiB");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.output, Catch::Contains("--collective"));
  CHECK_THAT(unknown.output, Catch::Contains("all_to_all"));
  const auto size = run_scoville(base + "--collective all_reduce --bytes 12parsec");
  CHECK(size.exit_code == 2);
  CHECK_THAT(size.output, Catch::Contains("--bytes"));
  const auto algorithm =
      run_scoville(base + "--collective all_to_all --algorithm ring --bytes 1MiB");
  CHECK(algorithm.exit_code == 2);
  CHECK_THAT(algorithm.output, Catch::Contains("direct"));
  const auto system = run_scoville("net --system nvl576 --collective all_reduce --bytes 1MiB");
  CHECK(system.exit_code == 2);
  CHECK_THAT(system.output, Catch::Contains("jalapeno-2048"));
  const auto missing = run_scoville("net --collective all_reduce --bytes 1MiB");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Catch::Contains("--system"));
  const auto per_pair =
      run_scoville("net --system jalapeno-2048 --collective all_to_all --bytes 1MiB --per-pair");
  CHECK(per_pair.exit_code == 2);
  CHECK_THAT(per_pair.output, Catch::Contains("too many"));
  const auto chips = run_scoville(base + "--collective all_reduce --bytes 1MiB --chips 73");
  CHECK(chips.exit_code == 2);
  CHECK_THAT(chips.output, Catch::Contains("--chips"));
}
