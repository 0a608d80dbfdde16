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
  EnergyPerBit hbm;          // HBM access incl. PHY, per bit
  EnergyPerBit link;         // chip-to-chip link, per bit
};

}  // namespace scoville::models
