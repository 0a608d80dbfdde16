// A chip as the hardware models see it: resolved, unit-typed, immutable plain data. Filled in by
// sim/config from arch/chips/*.yaml and arch/energy/*.yaml; the models never read YAML.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "models/energy/energy_table.hpp"
#include "models/power/power_management_params.hpp"
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
  // Clock the engine sustains under dense matrix work, at or below the tile clock: chips that
  // reach their power limit on matmuls lower their clock (DVFS), and do so more on random data
  // than on zeros. Peak rates stay quoted at the tile clock; matrix cycles run at this one.
  // 0 = the tile clock (see TileParams::matrix_clock).
  Frequency sustained_clock;
  // The precision whose dense work sustained_clock was measured (or fitted) on. The other
  // precisions' clocks follow from the power balance at the chip's TDP
  // (models/chip/matrix_clocks.hpp): their dense work draws a different power per cycle.
  MathPrecision sustained_clock_precision = MathPrecision::kBf16;
  // Resolved from the above by resolve_matrix_clocks(); 0 = sustained_clock (or the tile clock).
  std::array<Frequency, kMathPrecisionCount> sustained_clock_by_precision{};

  bool supports(MathPrecision p) const { return k_per_cycle[index_of(p)] > 0; }
  int64_t macs_per_cycle(MathPrecision p) const { return rows * cols * k_per_cycle[index_of(p)]; }
};

// The GEMM library a chip's matmuls run through (docs/modelling.md, "Tiling"). Its macro tile,
// the output tile of one workgroup (Tensile / hipBLASLt, CK or cuBLASLt): a matmul with fewer
// instances than tiles whose macro tiles fill the chip is cut into them, dealt to the tiles in
// waves with the whole reduction each (a count that is not a multiple of the tiles leaves a
// partial last wave: wave quantisation). Smaller matmuls take the tiling policy's grid within
// the library's limits below. 0 x 0 = none: the grid for every op (an ideal library).
struct LibraryTileParams {
  int64_t rows = 0;  // the macro tile's output rows
  int64_t cols = 0;  // and columns
  // The smallest output tile the library has: a GEMM is cut into no more than ceil(m / min_rows)
  // x ceil(n / min_cols) pieces. 0: the matrix engine's block (no library limit).
  int64_t min_rows = 0;
  int64_t min_cols = 0;
  // The most ways the library splits one reduction (split-K). 0: no limit.
  int64_t max_split_k = 0;
  bool present() const { return rows > 0 && cols > 0; }
};

struct VectorUnitParams {
  double flops_per_cycle = 0;  // elementwise/reduction FLOP per cycle per tile
};

struct TileParams {
  int64_t count = 0;
  Frequency clock;
  MatrixEngineParams matrix;
  LibraryTileParams library_tile;
  VectorUnitParams vector;
  Bytes sram;                // local buffer per tile; half of it is one double-buffer slot
  Bandwidth sram_bandwidth;  // per tile, local buffer read+write
  // Whether a tile streams the next op's weights while the current op drains (dataflow
  // designs), or only at the op's start (kernel-per-op execution, as on GPUs).
  bool prefetch_next_op = false;

  Frequency matrix_clock() const {
    return matrix.sustained_clock.si() > 0 ? matrix.sustained_clock : clock;
  }
  // The clock dense matrix work of precision p holds (its power-limited clock when resolved).
  Frequency matrix_clock(MathPrecision p) const {
    const Frequency f = matrix.sustained_clock_by_precision[index_of(p)];
    return f.si() > 0 ? f : matrix_clock();
  }
};

// Chip-wide on-chip memory shared by all tiles (a GPU's L2, a wafer/reticle chip's global SRAM).
struct SharedSramParams {
  Bytes capacity;
  Bandwidth bandwidth;  // aggregate over all tiles
  int64_t banks = 1;    // independently busy banks, interleaved every 4 KiB
};

// On-chip network between tiles, shared SRAM and HBM controllers. `crossbar` (the default): a
// fixed traversal latency and no on-chip bandwidth limit besides the memories'. `mesh`: HBM
// traffic also crosses a cols x rows mesh with per-link contention (models/noc/mesh_noc_model.hpp);
// shared-SRAM traffic keeps the crossbar latency.
enum class NocTopology { kCrossbar, kMesh };

struct NocParams {
  Duration latency;  // fixed part of every transfer (controller, queues), both topologies
  NocTopology topology = NocTopology::kCrossbar;
  int64_t cols = 0;          // mesh only
  int64_t rows = 0;          // mesh only
  Bandwidth link_bandwidth;  // mesh only: per link, per direction
  Duration hop_latency;      // mesh only: per router hop
};

// DRAM organisation and timing of one HBM pseudo-channel (JEDEC JESD238 names, lower-cased).
// Every channel has `pseudo_channels` independent pseudo-channels sharing its command bus and
// splitting its data pins evenly; each has bank_groups x banks_per_group banks with one open
// row (open-page policy). Only ratios and sums of these times matter to the channel model, not
// a clock: a burst lasts burst_bytes / (bandwidth_per_channel / pseudo_channels).
struct HbmTimingParams {
  int64_t pseudo_channels = 2;
  int64_t bank_groups = 4;
  int64_t banks_per_group = 4;
  Bytes row_bytes;    // row (page) size per pseudo-channel
  Bytes burst_bytes;  // one column access: pseudo-channel width x burst length
  Duration t_rcd;     // ACT to column command (row open)
  Duration t_rp;      // PRE to ACT (row close)
  Duration t_ras;     // ACT to PRE, minimum
  Duration t_ccd_l;   // column to column, same bank group (different groups: one burst)
  Duration t_rrd;     // ACT to ACT, different banks of a pseudo-channel
  Duration t_faw;     // window holding at most four ACTs per pseudo-channel
  Duration t_wr;      // end of write data to PRE
  Duration t_wtr;     // end of write data to the next read's data (bus turnaround)
  Duration t_rtw;     // end of read data to the next write's data (bus turnaround)
  Duration t_refi;    // all-bank refresh interval
  Duration t_rfc;     // all-bank refresh duration (channel unavailable, rows closed)

  int64_t banks() const { return bank_groups * banks_per_group; }
};

struct HbmParams {
  int64_t stacks = 0;
  int64_t channels_per_stack = 0;
  Bandwidth bandwidth_per_channel;  // peak: pins x data rate
  Bytes capacity;
  Duration latency;          // request to first data, unloaded (controller, PHY, NoC, DRAM core)
  Bytes interleave_granule;  // consecutive addresses rotate over channels every granule
  HbmTimingParams timing;

  int64_t channels() const { return stacks * channels_per_stack; }
  Bandwidth peak_bandwidth() const {
    return bandwidth_per_channel * static_cast<double>(channels());
  }
  Bandwidth pseudo_channel_bandwidth() const {
    return bandwidth_per_channel / static_cast<double>(timing.pseudo_channels);
  }
};

struct ChipPortParams {
  int64_t count = 0;
  Bandwidth bandwidth_per_port;  // per direction
};

struct PowerParams {
  Power tdp;
  Power static_power;  // leakage and always-on logic, paid whenever the chip is powered
  // Drawn above static power while kernels run at the nominal clock, whatever they compute:
  // clock distribution, instruction fetch and issue, schedulers, register files and the
  // memory path kept toggling at the top clock. Paid for busy (kernel) time only, not for
  // host/software time or idle gaps; dynamic, so it scales with f V^2 under DVFS. 0: not
  // modelled (the chip's whole dynamic energy is in its per-action energy table).
  Power active_power;
  // DVFS, power cap and gating; absent (present == false): the chip always runs at its clock.
  PowerManagementParams management;
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
