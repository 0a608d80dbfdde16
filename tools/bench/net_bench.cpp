// Network simulation benchmark (not a test): times collectives on the shipped systems and prints
// the wall time and the process's peak resident memory after each case. Cases run in order of
// size, largest first, so the first figure is the 2,048-chip all-to-all's own peak.
//   build/release/tools/bench/scoville_net_bench
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "models/network/network_model.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/system_loader.hpp"

namespace {

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

struct Case {
  const char* system;
  const char* collective;
  const char* algorithm;  // "" = policy (every applicable algorithm is simulated)
  double bytes;
  bool per_pair;
};

}  // namespace

int main() {
  using namespace scoville;
  const config::DataPaths paths = config::DataPaths::from_environment();
  const Case cases[] = {
      {"jalapeno-2048", "all_to_all", "", 1024.0 * 1024 * 1024, false},
      {"jalapeno-2048", "all_reduce", "hierarchical", 1024.0 * 1024 * 1024, false},
      {"jalapeno-128", "all_reduce", "", 1024.0 * 1024 * 1024, false},
      {"jalapeno-128", "all_reduce", "ring", 1024.0 * 1024 * 1024, false},
      {"jalapeno-128", "all_to_all", "", 1024.0 * 1024 * 1024, true},
      {"gb200-nvl72", "all_reduce", "", 1024.0 * 1024 * 1024, false},
  };
  std::printf("%-14s %-11s %-28s %9s %10s %12s %10s %10s %12s\n", "system", "collective",
              "algorithm", "ranks", "flows", "simulated", "sim_ms", "wall_s", "peak_rss_MiB");
  for (const Case& c : cases) {
    const auto start = std::chrono::steady_clock::now();
    const config::SystemConfig system = config::load_system(c.system, paths);
    const models::Topology topology = config::build_network(system);
    const models::NetworkModel model(topology);
    const models::CollectiveResult r =
        model.run_collective(c.collective, models::make_communicator(topology, 0), Bytes(c.bytes),
                             c.algorithm, !c.per_pair);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string algorithm =
        r.algorithm + (c.algorithm[0] == '\0' ? " (policy)" : "") + (c.per_pair ? " per-pair" : "");
    std::printf("%-14s %-11s %-28s %9lld %10lld %12lld %10.3f %10.3f %12.1f\n", c.system,
                c.collective, algorithm.c_str(), static_cast<long long>(r.ranks),
                static_cast<long long>(r.timing.flows),
                static_cast<long long>(r.timing.simulated_flows), r.timing.time.si() * 1e3, wall,
                peak_rss_mib());
  }
  return 0;
}
