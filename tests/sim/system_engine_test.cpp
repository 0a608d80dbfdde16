// The system engine: one design reused across iterations, representative vs every chip, and the
// per-component breakdown. Each TEST_CASE runs in its own process (one SystemC design each).
#include <catch2/catch.hpp>

#include <cmath>
#include <utility>

#include "sim/base/yaml_reader.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/engine/system_engine.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;
using namespace scoville::engine;

namespace {

// 16 chips: two local switch domains of 8 joined by a scale-out switch, so that a dp = 2 mapping
// has a TP group per domain and an EP or DP collective across them.
const char* kSystem16 = R"(system:
  name: sixteen
  chip: jalapeno
  chips: 16
  network:
    local:
      size: 8
      topology: switch
      link: {lanes: 4, bandwidth_per_lane: 100 GB/s, latency: 200 ns, energy: 5 pJ/bit}
      switch: {radix: 8, port_bandwidth: 400 GB/s, latency: 250 ns, energy: 10 pJ/bit}
    scale_out:
      domains: 2
      topology: switch
      link: {lanes: 1, bandwidth_per_lane: 100 GB/s, latency: 100 ns, energy: 5 pJ/bit}
      switch: {radix: 16, port_bandwidth: 100 GB/s, latency: 700 ns, energy: 10 pJ/bit}
      nic: {bandwidth: 100 GB/s, latency: 1 us, energy: 6 pJ/bit}
)";

// A shipped model cut to `layers` layers, so that simulating every chip stays fast.
workloads::ModelConfig model(const std::string& name, int layers) {
  std::string text =
      read_text_file(std::string(SCOVILLE_SOURCE_DIR) + "/workloads/models/" + name + ".yaml");
  const size_t at = text.find("\nlayers: ") + 1;
  text.replace(at, text.find(' ', at + 8) - at, "layers: " + std::to_string(layers));
  return workloads::load_model_from_string(text, name + ".yaml");
}

workloads::PoolMapping mapping(int64_t chips, int64_t tp, int64_t dp) {
  workloads::PoolMapping m;
  m.chips = chips;
  m.degrees.tp = tp;
  m.degrees.dp = dp;
  m.where = SourceLocation{"test", 0, 0};
  return m;
}

SystemSetup setup16(Fidelity fidelity, Overlap overlap = Overlap::kNone) {
  const config::SystemConfig sys = config::parse_system_string(kSystem16, "sixteen.yaml");
  return make_setup(sys, model("llama-3.1-8b", 4), mapping(16, 8, 2),
                    config::DataPaths::from_environment(), {fidelity, overlap});
}

workloads::IterationShape decode(int64_t batch, int64_t context) {
  return {workloads::Phase::kDecode, batch, 1, context};
}
workloads::IterationShape prefill(int64_t batch, int64_t isl) {
  return {workloads::Phase::kPrefill, batch, isl, isl};
}

double relative(Duration a, Duration b) { return std::abs(a.si() - b.si()) / b.si(); }

}  // namespace

TEST_CASE("two identical iterations in one process take identical time", "[system_engine]") {
  SystemEngine engine(setup16(Fidelity::kRepresentative));
  const SystemIterationResult first = engine.run(decode(8, 1024));
  const SystemIterationResult other = engine.run(prefill(2, 256));
  const SystemIterationResult again = engine.run(decode(8, 1024));
  // Identical up to the rounding of absolute times (records are absolute, in doubles).
  CHECK(relative(again.hardware_time, first.hardware_time) < 1e-9);
  CHECK(std::abs(again.energy.si() - first.energy.si()) / first.energy.si() < 1e-9);
  CAPTURE(relative(again.hardware_time, first.hardware_time));
  CHECK(other.hardware_time > first.hardware_time);
}

TEST_CASE("representative and all chips agree within 2 percent on 16 chips", "[system_engine]") {
  // Both designs elaborated before the first run (one design per process).
  SystemEngine representative(setup16(Fidelity::kRepresentative));
  SystemEngine all(setup16(Fidelity::kAll));
  for (const workloads::IterationShape& shape : {decode(7, 1024), prefill(3, 128)}) {
    const SystemIterationResult r = representative.run(shape);
    const SystemIterationResult a = all.run(shape);
    INFO(workloads::to_string(shape.phase));
    CHECK(a.simulated_chips == 16);
    CHECK(r.simulated_chips == r.roles);
    CHECK(relative(r.time, a.time) < 0.02);
    CHECK(std::abs(r.energy.si() - a.energy.si()) / a.energy.si() < 0.02);
  }
}

TEST_CASE("the system breakdown adds up and the network carries the collectives",
          "[system_engine]") {
  SystemEngine engine(setup16(Fidelity::kRepresentative));
  const SystemIterationResult r = engine.run(decode(8, 1024));
  const double parts = (r.compute_time + r.hbm_time + r.local_network_time + r.scale_out_time).si();
  CHECK(parts == Approx(r.hardware_time.si()).epsilon(1e-9));
  CHECK(r.energy.si() == Approx((r.compute_energy + r.hbm_energy + r.local_network_energy +
                                 r.scale_out_energy + r.kv_transfer_energy + r.static_energy)
                                    .si())
                             .epsilon(1e-9));
  // dp = 2, tp = 8 on two domains of 8: every TP group stays in its domain.
  CHECK(r.local_network_time.si() > 0);
  CHECK(r.scale_out_time.si() == 0);
  CHECK(r.network_bytes.si() > 0);
  // Static energy is every pool chip's static power over the iteration.
  CHECK(r.static_energy.si() ==
        Approx((engine.setup().chip.power.static_power * r.time).si() * 16).epsilon(1e-9));
  CHECK(r.software_time.si() == 0);  // the inline system names no software profile
}

TEST_CASE("each collective call of the busiest role pays the profile's per-call time",
          "[system_engine]") {
  SystemSetup s = setup16(Fidelity::kRepresentative);
  s.software.name = "test";
  s.software.per_collective = Duration(7e-6);
  SystemEngine engine(std::move(s));
  const SystemIterationResult r = engine.run(decode(8, 1024));
  REQUIRE(r.collectives > 0);  // tp = 8: all-reduces in every layer
  // No launch, sync or iteration time in this profile: the calls are the whole software time.
  CHECK(r.software_time.si() == Approx(7e-6 * static_cast<double>(r.collectives)));
  CHECK(r.time.si() == Approx((r.hardware_time + r.software_time).si()));
}

TEST_CASE("an all-to-all call pays per_all_to_all, every other call per_collective",
          "[system_engine]") {
  // gpt-oss-120b cut to 2 layers on one domain of 8, attention DP 4 (attention TP 2): the
  // experts' dispatch and combine are all-to-alls; the attention all-reduces and the owned
  // tokens' gathers are other calls.
  const config::SystemConfig sys = config::parse_system_string(kSystem16, "sixteen.yaml");
  workloads::PoolMapping m = mapping(8, 8, 1);
  m.degrees.ep = 8;
  m.degrees.attn_dp = 4;
  SystemSetup s = make_setup(sys, model("gpt-oss-120b", 2), m,
                             config::DataPaths::from_environment(), {Fidelity::kRepresentative});
  s.software.name = "test";
  s.software.per_collective = Duration(7e-6);
  s.software.per_all_to_all = Duration(24e-6);
  SystemEngine engine(std::move(s));
  const SystemIterationResult r = engine.run(decode(8, 1024));
  const int64_t all_to_alls = 2 * 2;  // dispatch and combine in each of the 2 layers
  REQUIRE(r.collectives > all_to_alls);
  CHECK(r.software_time.si() ==
        Approx(24e-6 * all_to_alls + 7e-6 * static_cast<double>(r.collectives - all_to_alls)));
}

TEST_CASE("a stack that fuses vector ops runs them in no time of their own but keeps their work",
          "[system_engine]") {
  SystemSetup apart_setup = setup16(Fidelity::kRepresentative);
  apart_setup.software.name = "test";
  apart_setup.software.per_op_launch = Duration(1e-6);
  SystemSetup fused_setup = apart_setup;
  fused_setup.software.fused_vector_ops = true;
  SystemEngine apart(std::move(apart_setup));
  SystemEngine fused(std::move(fused_setup));
  const SystemIterationResult a = apart.run(decode(8, 1024));
  const SystemIterationResult f = fused.run(decode(8, 1024));
  // The norms, rotary, residual adds and activations lose their fixed latency and launches.
  CHECK(f.hardware_time.si() < a.hardware_time.si());
  const double launches = (a.software_time - f.software_time).si() / 1e-6;
  CHECK(launches >= 4 * 4);  // at least four vector ops in each of the 4 layers
  CHECK(launches == Approx(std::round(launches)).margin(1e-6));
  // Their work stays: dynamic energy, FLOPs and HBM bytes as when each ran as an op.
  CHECK(f.compute_energy.si() == Approx(a.compute_energy.si()).epsilon(0.01));
  CHECK(f.hbm_bytes.si() == Approx(a.hbm_bytes.si()).epsilon(0.01));
  CHECK(f.flops.si() == Approx(a.flops.si()).epsilon(1e-9));
}

TEST_CASE("two-batch overlap hides communication under compute", "[system_engine]") {
  SystemEngine none(setup16(Fidelity::kRepresentative));
  SystemEngine overlapped(setup16(Fidelity::kRepresentative, Overlap::kTwoBatch));
  const SystemIterationResult a = none.run(decode(8, 1024));
  const SystemIterationResult b = overlapped.run(decode(8, 1024));
  CHECK(b.hardware_time < a.hardware_time);
  // At best the whole network time is hidden.
  CHECK(b.hardware_time.si() >=
        (a.hardware_time - a.local_network_time - a.scale_out_time).si() * (1 - 1e-9));
}

namespace {
SystemSetup hgx_setup(const std::string& placement, int64_t tp) {
  const config::DataPaths paths = config::DataPaths::from_environment();
  SystemEngineOptions options;
  options.kv_placement = placement;
  return make_setup(config::load_system("h200-hgx8", paths), model("llama-3.1-8b", 4),
                    mapping(tp, tp, 1), paths, options);
}
}  // namespace

TEST_CASE("disaggregated prefill hands its KV to the decode pool at link bandwidth",
          "[system_engine]") {
  SystemEngine local(hgx_setup("local", 4));
  SystemEngine disaggregated(hgx_setup("disaggregated", 4));
  const workloads::IterationShape shape = prefill(2, 1024);
  const SystemIterationResult a = local.run(shape);
  const SystemIterationResult b = disaggregated.run(shape);
  CHECK(a.kv_transfer_time.si() == 0);
  // Closed form: each of the 4 prefill chips sends its quarter of the KV (tp 4 divides the 8 KV
  // heads) over its NVLink port to its decode peer.
  const workloads::ModelConfig m = model("llama-3.1-8b", 4);
  const Bytes per_chip = m.kv_bytes(1024) * 2.0 / 4.0;
  CHECK(b.kv_transfer_bytes.si() == Approx(per_chip.si() * 4).epsilon(1e-6));
  const config::SystemConfig sys =
      config::load_system("h200-hgx8", config::DataPaths::from_environment());
  const Duration closed_form = per_chip / sys.network.link.bandwidth();
  CHECK(relative(b.kv_transfer_time, closed_form) < 0.05);
  CHECK(b.kv_transfer_energy.si() > 0);
  // The rest of the iteration is the same work.
  CHECK(relative(b.hardware_time - b.kv_transfer_time, a.hardware_time) < 1e-9);
}

TEST_CASE("remote_pool reads KV over the host link and sram_window from SRAM", "[system_engine]") {
  SystemEngine local(hgx_setup("local", 8));
  SystemEngine remote(hgx_setup("remote_pool", 8));
  SystemEngine window(hgx_setup("sram_window", 8));
  const workloads::IterationShape shape = decode(16, 2048);
  const SystemIterationResult a = local.run(shape);
  const SystemIterationResult r = remote.run(shape);
  const SystemIterationResult w = window.run(shape);
  const config::SystemConfig sys =
      config::load_system("h200-hgx8", config::DataPaths::from_environment());
  // Every KV byte crosses the host link: at least bytes / per-chip bandwidth on each chip.
  const Bytes per_chip = r.kv_transfer_bytes / 8.0;
  CHECK(per_chip.si() > 0);
  CHECK(r.kv_transfer_time.si() >= (per_chip / sys.host->per_chip_bandwidth()).si());
  CHECK(r.time > a.time);
  CHECK(r.hbm_bytes < a.hbm_bytes);
  CHECK(w.hbm_bytes < a.hbm_bytes);
  CHECK(w.kv_transfer_time.si() == 0);
}

TEST_CASE("simulating repeated ops once stays within 1 percent of simulating each",
          "[system_engine]") {
  SystemSetup once = setup16(Fidelity::kRepresentative);
  once.options.simulate_repeated_ops_once = true;
  SystemEngine reuse(once);
  SystemEngine full(setup16(Fidelity::kRepresentative));
  for (const workloads::IterationShape& shape : {decode(8, 2048), prefill(2, 256)}) {
    const SystemIterationResult a = reuse.run(shape);
    const SystemIterationResult b = full.run(shape);
    INFO(workloads::to_string(shape.phase));
    CAPTURE(relative(a.time, b.time));
    CHECK(relative(a.time, b.time) < 0.01);
    CHECK(std::abs(a.energy.si() - b.energy.si()) / b.energy.si() < 0.01);
  }
}

namespace {
// gpt-oss-20b cut to 2 layers (32 experts, top-4) on the 16 chips with ep = tp = 16: two
// experts per rank, so a Zipf draw loads rank 0 (experts 0 and 1, the hottest) most.
SystemSetup moe16(Fidelity fidelity, const std::string& routing) {
  const config::SystemConfig sys = config::parse_system_string(kSystem16, "sixteen.yaml");
  workloads::PoolMapping m = mapping(16, 16, 1);
  m.degrees.ep = 16;
  SystemEngineOptions options;
  options.fidelity = fidelity;
  options.routing = workloads::parse_routing_spec(routing);
  options.routing.seed = 11;
  return make_setup(sys, model("gpt-oss-20b", 2), m, config::DataPaths::from_environment(),
                    options);
}
}  // namespace

TEST_CASE(
    "under a Zipf routing draw representative runs the most loaded EP rank and agrees "
    "with all within 2 percent",
    "[system_engine][moe]") {
  SystemEngine rep_zipf(moe16(Fidelity::kRepresentative, "zipf:1.2"));
  SystemEngine all_zipf(moe16(Fidelity::kAll, "zipf:1.2"));
  SystemEngine rep_expected(moe16(Fidelity::kRepresentative, "expected"));
  SystemEngine all_expected(moe16(Fidelity::kAll, "expected"));
  for (const workloads::IterationShape& shape : {decode(64, 1024), prefill(4, 128)}) {
    INFO(workloads::to_string(shape.phase));
    const SystemIterationResult r = rep_zipf.run(shape);
    const SystemIterationResult a = all_zipf.run(shape);
    const SystemIterationResult re = rep_expected.run(shape);
    const SystemIterationResult ae = all_expected.run(shape);
    CHECK(r.simulated_chips == 1);
    CHECK(a.simulated_chips == 16);
    // The draw is clearly imbalanced: the most loaded rank has several times the mean pairs.
    CHECK(r.ep_imbalance > 2.0);
    CHECK(re.ep_imbalance == 0.0);
    CAPTURE(relative(r.time, a.time), r.energy.si() / a.energy.si() - 1);
    CHECK(relative(r.time, a.time) < 0.02);
    CHECK(std::abs(r.energy.si() - a.energy.si()) / a.energy.si() < 0.02);
    // Every rank's expert FLOPs are counted once, whichever fidelity.
    CHECK(r.flops.si() == Approx(a.flops.si()).epsilon(1e-9));
    CHECK(r.flops.si() == Approx(re.flops.si()).epsilon(1e-9));
    // Imbalance costs time: the most loaded rank holds up every other at the combine.
    CHECK(a.time > ae.time);
    CHECK(r.time > re.time);
    // Under the expected routing every rank does the same work: representative is exact.
    CHECK(relative(re.time, ae.time) < 1e-9);
  }
}
