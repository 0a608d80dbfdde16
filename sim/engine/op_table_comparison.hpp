// The simulated op table measured against the full-iteration SystemC run (the reference the
// table must stay within 2% of: docs/performance.md). Shared by tools/bench/op_table_bench and
// tests/sim/op_table_fidelity_test.cpp, so that the benchmark's figures and the test's bound come
// from one definition of "the same iteration".
//
// Per case, prefill (one prompt) and decode (a uniform batch) iterations are priced by
//   reference: SystemEngine (every op of the iteration on the chip model, in order; fidelity
//              representative, KV local, no software profile), and
//   table:     RooflineCostModel with a SimulatedOpCost behind it (each distinct op alone on
//              the chip model; the pricer's own caches off, the persistent op cache bypassed).
// Compared: the chips' op time (the critical role's ops, collectives excluded: the two price
// collectives on different network models), the iteration's time (collectives included), and the
// pool's dynamic compute and HBM energy.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/base/units.hpp"
#include "sim/config/data_paths.hpp"

namespace scoville::engine {

struct ComparisonCase {
  std::string label;
  std::string system;  // arch/systems name
  std::string model;   // workloads/models name
  int64_t tp = 1, ep = 1;
  int64_t prefill_tokens = 8192;  // one prompt; 0: no prefill row
  int64_t decode_batch = 16;      // 0: no decode row
  int64_t decode_context = 8704;  // context after the step
};

struct ComparisonRow {
  std::string label;
  std::string phase;
  Duration reference_ops, table_ops;
  Duration reference_time, table_time;
  Energy reference_energy, table_energy;
  double reference_cpu_s = 0, table_cpu_s = 0;

  double ops_error() const { return table_ops / reference_ops - 1.0; }
  double time_error() const { return table_time / reference_time - 1.0; }
  double energy_error() const { return table_energy / reference_energy - 1.0; }
};

// The cases the issue names: the default study (Llama 3.1 8B on H200 and on a Jalapeño-like chip,
// batch 16, 8K prompt), GPT-OSS 120B on h200-hgx8 at TP 1 and TP 8, DeepSeek R1 on gb200-nvl72 at
// TP 8 / EP 8.
std::vector<ComparisonCase> floor_cases();
// Smaller iterations of the same kinds, cheap enough for the test suite.
std::vector<ComparisonCase> quick_cases();

// One op class's share of an iteration on the critical role: the closed-form roofline time
// (FLOPs at peak; weight, KV and activation bytes at peak HBM bandwidth; no calibration: what
// RooflineCostModel computes per op) against the op table's.
struct ClassTimes {
  std::string op_class;  // "gemm", "attention", "other" (serving::OpClass)
  Duration roofline;
  Duration table;
  int64_t ops = 0;
};

class OpTableComparison {
 public:
  // Elaborates both chip models: build every comparison of a process before the first run().
  OpTableComparison(ComparisonCase c, const config::DataPaths& paths);
  ~OpTableComparison();
  std::vector<ComparisonRow> run();
  // Where the op table and the roofline part, per op class, for each iteration of run().
  std::vector<std::pair<std::string, std::vector<ClassTimes>>> by_class();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace scoville::engine
