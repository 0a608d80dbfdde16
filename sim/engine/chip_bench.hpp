// The chip micro-benchmarks of `scoville chip-bench` (docs/chip-validation.md): GEMMs over shapes
// and precisions, HBM reads (streaming, strided, random) and copies, decode attention at several
// context lengths and the chip-to-chip ports, each run through the same SystemC chip module as
// studies. Each case is its own chip instance running a one-op program, all elaborated in one
// design and simulated together (they share nothing).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/chip/chip_params.hpp"
#include "models/chip/port_dma_module.hpp"
#include "models/compute/work_descriptor.hpp"

namespace scoville::engine {

enum class Metric { kFlopRate, kBandwidth };

struct BenchCase {
  std::string name;
  std::string group;  // gemm, hbm, attention
  std::string detail;
  Metric metric = Metric::kFlopRate;
  double useful = 0;            // FLOP or bytes
  double peak = 0;              // FLOP/s or B/s the chip could reach on this case
  models::WorkDescriptor work;  // label empty: no program (a ports-only case)
  // Chip-to-chip traffic alongside the program; when measure_port, the case times that instead.
  std::optional<models::PortTransfer> port;
  bool measure_port = false;
};

// Every case the chip can run (a GEMM in a precision it lacks is left out), in report order.
std::vector<BenchCase> all_bench_cases(const models::ChipParams& chip);

// A GEMM of any shape named as the listed ones are, `gemm-FORMAT-MxNxK` (e.g. a published
// measurement's best shape); nullopt when the name has another form, a size is not a positive
// integer up to 2^20, or the chip has no precision for the format.
std::optional<BenchCase> gemm_case_named(const models::ChipParams& chip, const std::string& name);

struct BenchResult {
  double seconds = 0;  // the op's (or the port transfer's) simulated time
  double rate = 0;     // useful work per second: FLOP/s or B/s
};

// Simulates the cases (once per process: SystemC elaborates one design) and returns one result per
// case. ScovilleError when a case stops before it finishes.
std::vector<BenchResult> run_bench_cases(const models::ChipParams& chip,
                                         const std::vector<BenchCase>& cases);

}  // namespace scoville::engine
