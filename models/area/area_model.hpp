// Die area of a chip from what its chip file describes: each component is a count times a
// per-unit area at the die's process node (logic from transistor counts over the node's
// density, SRAM from its bitcell, PHYs as fixed analog blocks), plus an uncore fraction.
// Pure: no I/O, no SystemC. Method and error against published dies: docs/area-cost.md.
#pragma once

#include <string>
#include <vector>

#include "models/area/area_params.hpp"
#include "models/chip/chip_params.hpp"

namespace scoville::models {

enum class DieKind { kCompute, kIo };
const char* to_string(DieKind kind);

// One component of the area: count units of per_unit each, on dies of one kind (summed over
// all dies of that kind in the package).
struct AreaItem {
  std::string component;
  DieKind die = DieKind::kCompute;
  double count = 0;
  std::string unit;  // what one unit is ("MAC lane", "tile", "MiB", "stack", "lane")
  Area per_unit;
  Area total;
};

struct DieArea {
  DieKind kind = DieKind::kCompute;
  std::string node;
  int64_t count = 0;
  Area per_die;
  Area published_per_die;  // 0 when not published
  bool over_reticle = false;
};

struct AreaBreakdown {
  std::string chip;
  std::vector<AreaItem> items;
  std::vector<DieArea> dies;
  Area total_silicon;
  std::vector<std::string> notes;  // over-reticle dies, assumptions a reader must see
};

// The processes the chip's dies are made on; `io` is used only when profile.io_dies > 0.
struct AreaNodes {
  const ProcessNode* compute = nullptr;
  const ProcessNode* io = nullptr;
};

// Multiply-accumulate lanes of one tile's matrix engine in BF16 equivalents: the array is
// sized by its most demanding precision, an FP8 lane costing fp8_mac_share of a BF16 one.
double bf16_equivalent_macs(const MatrixEngineParams& m, const AreaComponents& c);

// Units on the silicon: the profile's physical count (enabled plus fused-off), never fewer than
// the chip file enables (so that --set tiles.count=N past the die's count grows the die).
int64_t physical_tiles(const ChipParams& chip, const ChipAreaProfile& profile);
int64_t physical_hbm_stacks(const ChipParams& chip, const ChipAreaProfile& profile);

AreaBreakdown estimate_area(const ChipParams& chip, const ChipAreaProfile& profile,
                            const AreaComponents& components, const AreaNodes& nodes,
                            Area reticle_limit);

}  // namespace scoville::models
