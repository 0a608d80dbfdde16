// A chip as the hardware models see it: resolved, unit-typed, immutable plain data. Filled in by
// sim/config from arch/chips/*.yaml and arch/energy/*.yaml; the models never read YAML.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "models/energy/energy_table.hpp"
#include "sim/base/number_format.hpp"
#include "sim/base/units.hpp"

namespace scoville::models {

constexpr size_t kMathPrecisionCount = 3;
inline size_t index_of(MathPrecision p) { return static_cast<size_t>(p); }

// Matrix engine of one tile. Per cycle it advances an output block of rows x cols by
// k_per_cycle(p) steps of the reduction: rows x cols x k_per_cycle MACs per cycle.
struct MatrixEngineParams {
  int64_t rows = 0;
  int64_t cols = 0;
  // Reduction steps per cycle at each math precision; 0 = precision not supported natively.
  std::array<int64_t, kMathPrecisionCount> k_per_cycle{};
  // Cycles to fill and drain the engine's pipeline, paid once per work block (consecutive
  // output blocks of one block overlap their fill with the previous drain).
  int64_t pipeline_latency_cycles = 0;

  bool supports(MathPrecision p) const { return k_per_cycle[index_of(p)] > 0; }
  int64_t macs_per_cycle(MathPrecision p) const { return rows * cols * k_per_cycle[index_of(p)]; }
};

struct VectorUnitParams {
  double flops_per_cycle = 0;  // elementwise/reduction FLOP per cycle per tile
};

struct TileParams {
  int64_t count = 0;
  Frequency clock;
  MatrixEngineParams matrix;
  VectorUnitParams vector;
  Bytes sram;                // local buffer per tile; half of it is one double-buffer slot
  Bandwidth sram_bandwidth;  // per tile, local buffer read+write
  // Whether a tile streams the next op's weights while the current op drains (dataflow
  // designs), or only at the op's start (kernel-per-op execution, as on GPUs).
  bool prefetch_next_op = false;
};

// Chip-wide on-chip memory shared by all tiles (a GPU's L2, a wafer/reticle chip's global SRAM).
struct SharedSramParams {
  Bytes capacity;
  Bandwidth bandwidth;  // aggregate over all tiles
  int64_t banks = 1;    // independently busy banks, interleaved every 4 KiB
};

// On-chip network between tiles, shared SRAM and HBM controllers (level 1: a crossbar with a
// fixed traversal latency; the mesh with per-link contention comes with the chip-fidelity work).
struct NocParams {
  Duration latency;
};

struct HbmParams {
  int64_t stacks = 0;
  int64_t channels_per_stack = 0;
  Bandwidth bandwidth_per_channel;
  Bytes capacity;
  Duration latency;             // request to first data, unloaded
  Bytes interleave_granule;     // consecutive addresses rotate over channels every granule
  double streaming_efficiency;  // achieved fraction of peak on long sequential streams

  int64_t channels() const { return stacks * channels_per_stack; }
  Bandwidth peak_bandwidth() const {
    return bandwidth_per_channel * static_cast<double>(channels());
  }
};

struct ChipPortParams {
  int64_t count = 0;
  Bandwidth bandwidth_per_port;  // per direction
};

struct PowerParams {
  Power tdp;
  Power static_power;  // leakage and always-on logic, paid whenever the chip is powered
};

struct ChipParams {
  std::string name;
  std::string description;
  TileParams tiles;
  SharedSramParams shared_sram;
  NocParams noc;
  HbmParams hbm;
  ChipPortParams ports;
  PowerParams power;
  EnergyTable energy;

  FlopRate peak_flop_rate(MathPrecision p) const {
    return FlopRate(2.0 * static_cast<double>(tiles.matrix.macs_per_cycle(p)) *
                    static_cast<double>(tiles.count) * tiles.clock.si());
  }
  FlopRate peak_vector_rate() const {
    return FlopRate(tiles.vector.flops_per_cycle * static_cast<double>(tiles.count) *
                    tiles.clock.si());
  }
  // The precision the engine runs `wanted` at: itself when supported, else the next wider one
  // that is (weight-only quantisation: e.g. MXFP4 weights are upcast to FP8 or BF16 math).
  std::optional<MathPrecision> executed_precision(MathPrecision wanted) const;
};

}  // namespace scoville::models
