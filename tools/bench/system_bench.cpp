// System engine benchmark (not a test): one decode step of the large cases of issue 6 on the
// SystemC system engine, with the wall time and the process's peak resident memory, plus the
// DeepSeek R1 8K/1K disaggregated KV hand-over against its closed form (bytes / link bandwidth).
//   build/release/tools/bench/scoville_system_bench
//   build/release/tools/bench/scoville_system_bench --moe-fidelity
// The second: DeepSeek R1's wide-EP decode step under the expected and a Zipf routing, fidelity
// representative and all (every chip simulated, every op), for docs/systems.md.
// Each case elaborates its own engine; all are built before the first run (one design per
// process), so the wall time of a case is its run alone. cpu_s is the process's CPU time over
// the run (one thread): on a machine shared with other jobs it is what the wall time would be on
// an idle one, since the wall time then also counts waiting for a core.
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "sim/config/data_paths.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/engine/system_engine.hpp"
#include "workloads/model_loader.hpp"

namespace {

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
}

struct Case {
  const char* label;
  const char* system;
  const char* model;
  int64_t tp, ep, attn_dp, dp;
  scoville::workloads::Phase phase;
  int64_t batch, new_tokens, context;
  const char* kv_placement;
};

// DeepSeek R1 decode, wide EP 64 on gb200-nvl72 (as below), under expected and Zipf routing at
// both fidelities; each simulates every op.
int moe_fidelity() {
  using namespace scoville;
  const config::DataPaths paths = config::DataPaths::from_environment();
  const config::SystemConfig system = config::load_system("gb200-nvl72", paths);
  const workloads::ModelConfig model =
      workloads::load_model(paths.resolve("deepseek-r1", "workloads/models"));
  workloads::PoolMapping m;
  m.degrees.tp = 64;
  m.degrees.ep = 64;
  m.degrees.attn_dp = 64;
  m.chips = 64;
  m.where = SourceLocation{"bench", 0, 0};
  struct Variant {
    const char* routing;
    engine::Fidelity fidelity;
  };
  const Variant variants[] = {{"expected", engine::Fidelity::kRepresentative},
                              {"expected", engine::Fidelity::kAll},
                              {"zipf:1.2", engine::Fidelity::kRepresentative},
                              {"zipf:1.2", engine::Fidelity::kAll}};
  std::vector<std::unique_ptr<engine::SystemEngine>> engines;
  for (const Variant& v : variants) {
    engine::SystemEngineOptions options;
    options.fidelity = v.fidelity;
    options.routing = workloads::parse_routing_spec(v.routing);
    engines.push_back(std::make_unique<engine::SystemEngine>(
        engine::make_setup(system, model, m, paths, options)));
  }
  std::printf("%-10s %-15s %12s %12s %10s %10s %8s %8s\n", "routing", "fidelity", "step_ms",
              "energy_J", "imbalance", "simulated", "wall_s", "cpu_s");
  for (size_t i = 0; i < engines.size(); ++i) {
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu_start = std::clock();
    const engine::SystemIterationResult r =
        engines[i]->run({workloads::Phase::kDecode, 1024, 1, 9216});
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
    std::printf("%-10s %-15s %12.4f %12.4f %10.3f %10lld %8.2f %8.2f\n", variants[i].routing,
                variants[i].fidelity == engine::Fidelity::kAll ? "all" : "representative",
                r.time.si() * 1e3, r.energy.si(), r.ep_imbalance,
                static_cast<long long>(r.simulated_chips), wall, cpu);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace scoville;
  // --every-op: simulate every op (the default of scoville run --system); otherwise repeated
  // ops are simulated once (SystemEngineOptions::simulate_repeated_ops_once).
  const std::string mode = argc > 1 ? argv[1] : "";
  const bool reuse = mode != "--every-op" && mode != "--moe-fidelity";
  if (mode == "--moe-fidelity") return moe_fidelity();
  const config::DataPaths paths = config::DataPaths::from_environment();
  const workloads::Phase decode = workloads::Phase::kDecode;
  const workloads::Phase prefill = workloads::Phase::kPrefill;
  // 8K/1K: the last decode step attends to 8192 + 1024 tokens.
  const Case cases[] = {
      {"kimi-k2.5 decode, wide EP 64 x dp 32", "jalapeno-2048", "kimi-k2.5", 64, 64, 64, 32, decode,
       2048, 1, 9216, "local"},
      {"deepseek-r1 decode, wide EP 64", "gb200-nvl72", "deepseek-r1", 64, 64, 64, 1, decode, 1024,
       1, 9216, "local"},
      {"deepseek-r1 8K prefill, disaggregated", "gb200-nvl72", "deepseek-r1", 8, 8, 1, 1, prefill,
       1, 8192, 8192, "disaggregated"},
  };
  std::vector<std::unique_ptr<engine::SystemEngine>> engines;
  for (const Case& c : cases) {
    const config::SystemConfig system = config::load_system(c.system, paths);
    workloads::PoolMapping m;
    m.degrees.tp = c.tp;
    m.degrees.ep = c.ep;
    m.degrees.attn_dp = c.attn_dp;
    m.degrees.dp = c.dp;
    m.chips = c.tp * c.dp;
    m.where = SourceLocation{"bench", 0, 0};
    engine::SystemEngineOptions options;
    options.kv_placement = c.kv_placement;
    options.simulate_repeated_ops_once = reuse;
    const workloads::ModelConfig model =
        workloads::load_model(paths.resolve(c.model, "workloads/models"));
    engines.push_back(std::make_unique<engine::SystemEngine>(
        engine::make_setup(system, model, m, paths, options)));
  }
  std::printf("elaborated %zu engines, peak RSS %.1f MiB\n", engines.size(), peak_rss_mib());
  std::printf("%-40s %6s %5s %12s %12s %12s %10s %8s %12s\n", "case", "chips", "roles", "step_ms",
              "energy_J", "network_ms", "wall_s", "cpu_s", "peak_rss_MiB");
  for (size_t i = 0; i < engines.size(); ++i) {
    const Case& c = cases[i];
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu_start = std::clock();
    const engine::SystemIterationResult r =
        engines[i]->run({c.phase, c.batch, c.new_tokens, c.context});
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
    std::printf("%-40s %6lld %5lld %12.3f %12.3f %12.3f %10.3f %8.3f %12.1f\n", c.label,
                static_cast<long long>(r.chips), static_cast<long long>(r.roles), r.time.si() * 1e3,
                r.energy.si(), (r.local_network_time + r.scale_out_time).si() * 1e3, wall, cpu,
                peak_rss_mib());
    if (r.kv_transfer_bytes.si() > 0) {
      // Closed form: each prefill chip sends its KV to its decode peer over its own link.
      const Bytes per_chip = r.kv_transfer_bytes / static_cast<double>(r.chips);
      const Bandwidth link = engines[i]->setup().system.network.kind == "hierarchical"
                                 ? engines[i]->setup().system.network.local->link.bandwidth()
                                 : engines[i]->setup().system.network.link.bandwidth();
      const double closed = (per_chip / link).si();
      std::printf(
          "  KV hand-over: %.1f MB per chip, simulated %.1f us, bytes / link bandwidth "
          "%.1f us (%+.2f%%), energy %.3f J\n",
          per_chip.si() / 1e6, r.kv_transfer_time.si() * 1e6, closed * 1e6,
          100.0 * (r.kv_transfer_time.si() - closed) / closed, r.kv_transfer_energy.si());
    }
  }
  return 0;
}
