// Simulated op table against full-iteration SystemC (not a test): for each case, one prefill
// and one decode iteration priced twice — by the SystemC system engine running every op of the
// iteration on the chip model (SystemEngine, the reference), and by the iteration pricer with
// the simulated op table behind it (each distinct op run alone on the chip model, bucketed,
// memoised) — and their difference in the chips' op time (the critical role's ops, collectives
// excluded: the two levels time collectives with different network models), in the whole
// iteration time, and in the chips' dynamic energy (compute and HBM). No software profile, KV
// local, fidelity representative, persistent op cache bypassed.
//   build/release/tools/bench/scoville_op_table_bench [--quick]
// --quick: only the cases of tests/sim/op_table_fidelity_test.cpp.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "sim/config/data_paths.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/engine/op_table_comparison.hpp"

int main(int argc, char** argv) {
  using namespace scoville;
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  std::vector<engine::ComparisonCase> cases = engine::floor_cases();
  if (quick) cases = engine::quick_cases();
  const config::DataPaths paths = config::DataPaths::from_environment();
  std::vector<std::unique_ptr<engine::OpTableComparison>> comparisons;
  for (const engine::ComparisonCase& c : cases) {
    comparisons.push_back(std::make_unique<engine::OpTableComparison>(c, paths));
  }
  std::printf("%-44s %-8s %10s %10s %8s %10s %10s %8s %9s %9s %8s %8s %8s\n", "case", "phase",
              "ops_ms", "table_ms", "err_%", "iter_ms", "t_iter_ms", "err_%", "energy_J",
              "t_energy", "err_%", "ref_cpu", "tab_cpu");
  double worst = 0;
  for (const auto& comparison : comparisons) {
    for (const engine::ComparisonRow& r : comparison->run()) {
      std::printf(
          "%-44s %-8s %10.4f %10.4f %+8.2f %10.4f %10.4f %+8.2f %9.4f %9.4f %+8.2f %8.2f %8.2f\n",
          r.label.c_str(), r.phase.c_str(), r.reference_ops.si() * 1e3, r.table_ops.si() * 1e3,
          r.ops_error() * 100, r.reference_time.si() * 1e3, r.table_time.si() * 1e3,
          r.time_error() * 100, r.reference_energy.si(), r.table_energy.si(),
          r.energy_error() * 100, r.reference_cpu_s, r.table_cpu_s);
      worst = std::max({worst, std::abs(r.ops_error()), std::abs(r.energy_error())});
    }
  }
  std::printf("worst |error| (op time, energy): %.2f %%\n", worst * 100);
  // Where the op table parts from the closed-form roofline (no calibration), per op class.
  std::printf("\n%-44s %-8s %-10s %5s %12s %12s %8s\n", "case", "phase", "class", "ops",
              "roofline_ms", "table_ms", "ratio");
  for (size_t i = 0; i < comparisons.size(); ++i) {
    for (const auto& [phase, classes] : comparisons[i]->by_class()) {
      for (const engine::ClassTimes& t : classes) {
        if (t.ops == 0) continue;
        std::printf("%-44s %-8s %-10s %5lld %12.4f %12.4f %8.2f\n", cases[i].label.c_str(),
                    phase.c_str(), t.op_class.c_str(), static_cast<long long>(t.ops),
                    t.roofline.si() * 1e3, t.table.si() * 1e3, t.table / t.roofline);
      }
    }
  }
  return 0;
}
