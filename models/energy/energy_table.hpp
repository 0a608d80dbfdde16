// Prices of actions (Accelergy style: models count actions, this table prices them).
#pragma once

#include <array>
#include <string>

#include "sim/base/units.hpp"

namespace scoville::models {

struct EnergyTable {
  std::string name;
  std::array<Energy, 3> per_mac{};  // indexed by MathPrecision: bf16, fp8, fp4
  Energy per_vector_flop;
  EnergyPerBit tile_sram;    // tile-local buffer, per bit read or written
  EnergyPerBit shared_sram;  // chip-wide SRAM (L2), per bit read or written
  EnergyPerBit noc;          // on-chip network traversal, per bit
  EnergyPerBit hbm;          // HBM device access (the DRAM stack), per bit
  // The chip's own side of every HBM bit, beyond the device and the NoC/tile path that
  // stats::count_actions counts (zero where a table does not give it). Both are priced per HBM
  // bit, so every cost model that counts HBM bytes pays them (docs/power.md, "Energy against
  // measurement"):
  EnergyPerBit hbm_phy;    // host-side HBM PHY and memory controller: priced with `hbm` (own rail)
  EnergyPerBit hbm_cache;  // a memory-side cache every HBM bit passes (a GPU's L2: written on fill,
                           // read out to the tiles): priced with `shared_sram` (core rail)
  EnergyPerBit link;       // chip-to-chip link, per bit
};

}  // namespace scoville::models
