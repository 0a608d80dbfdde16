// What the area and cost models are given: per-node silicon figures (arch/area/<node>.yaml),
// node-independent per-unit costs of the building blocks (arch/area/components.yaml), what a
// shipped chip's YAML does not say about its silicon (arch/area/chips.yaml) and the cost
// assumptions (arch/area/cost.yaml). Plain data; sim/config fills it, every value sourced there.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "models/area/area_units.hpp"

namespace scoville::models {

// One process node, e.g. tsmc-4n.
struct ProcessNode {
  std::string name;
  double logic_density = 0;   // transistors per m^2 of placed logic
  Area sram_bitcell;          // high-density 6T bitcell
  Money wafer_price;          // one 300 mm wafer, processed
  double defect_density = 0;  // random defects per m^2 (D0)
};

// Control, scheduling and attachment logic of one tile, by kind of tile.
struct TileClass {
  double per_tile_transistors = 0;         // crossbar port, instruction fetch, per-tile control
  double per_vector_lane_transistors = 0;  // issue, operand collection per FP32 lane
  double other_units_transistors = 0;      // units the chip file does not model (FP64, INT32)
};

// How an SRAM of a given use packs: its area per bit over the node's bitcell.
enum class SramKind { kCache, kScratchpad };

struct AreaComponents {
  double matrix_mac_transistors = 0;   // one BF16 multiply-accumulate lane
  double fp8_mac_share = 0;            // an FP8 MAC lane's cost in BF16 MAC lanes
  double fp4_mac_share = 0;            // an FP4 MAC lane's cost in BF16 MAC lanes
  double vector_lane_transistors = 0;  // one FP32 FMA lane (2 FLOP per cycle)
  std::map<std::string, TileClass> tile_classes;
  double cache_bit_over_bitcell = 0;       // tags, ECC, periphery of a cache
  double scratchpad_bit_over_bitcell = 0;  // large software-managed macros with banking
  double register_file_bit_over_bitcell = 0;
  Area hbm_phy_per_stack;                 // analog PHY, does not shrink with the node
  double hbm_controller_transistors = 0;  // per stack
  Area serdes_phy_per_lane;
  double serdes_controller_transistors_per_lane = 0;
  Bandwidth serdes_lane_payload;  // per direction
  double uncore_fraction = 0;     // PCIe, clocks, power, fuses, pads, whitespace
};

// Silicon facts of one chip that arch/chips does not hold (physical units including the ones
// disabled for yield, die split, memory kinds) and its published die area for validation.
struct ChipAreaProfile {
  std::string chip;
  std::string node;        // compute dies
  std::string tile_class;  // key of AreaComponents::tile_classes
  int64_t compute_dies = 1;
  std::optional<int64_t> physical_tiles;       // none: the chip file's tile count
  std::optional<int64_t> physical_hbm_stacks;  // none: the chip file's stacks
  Bytes register_file_per_tile;
  Bytes extra_shared_sram;  // on the compute dies, beyond the chip file's (disabled slices, per-die
                            // L2)
  SramKind sram_kind = SramKind::kCache;
  // Dies of another node under or beside the compute dies (AMD's I/O dies) that hold the
  // shared SRAM, the HBM controllers and PHYs and the links.
  std::string io_node;
  int64_t io_dies = 0;
  Area published_compute_die;  // per die; 0 = not published
  Area published_io_die;       // per die; 0 = not published
  double stated_error = 0;     // |model / published - 1| the validation test holds it to
};

enum class YieldModel { kNegativeBinomial, kMurphy };

struct CostParams {
  double wafer_diameter_m = 0.3;
  YieldModel yield_model = YieldModel::kNegativeBinomial;
  double cluster_alpha = 3;  // negative binomial clustering
  Money hbm_per_gb;          // per 1e9 bytes of capacity
  Money interposer_per_mm2;  // 2.5D packaging (CoWoS-class) per mm^2 of interposer
  Area hbm_stack_footprint;
  double interposer_over_silicon = 1;  // interposer area / (dies + stack footprints)
  Money test_and_assembly;             // per package
  Area reticle_limit;
};

}  // namespace scoville::models
