// Energy = action counts x energy table + static power x time (per phase, per component).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "models/energy/energy_table.hpp"
#include "sim/base/units.hpp"

namespace scoville::models {

// What the hardware did; counted by the modules, priced by the table.
struct ActionCounts {
  std::array<double, 3> macs{};  // by MathPrecision
  double vector_flops = 0;
  Bytes tile_sram;    // bytes written into plus read out of tile buffers
  Bytes shared_sram;  // bytes read from plus written to shared SRAM
  Bytes noc;          // bytes carried by the on-chip network
  Bytes hbm;          // bytes read from plus written to HBM
  Bytes link;         // bytes sent over chip-to-chip links

  ActionCounts& operator+=(const ActionCounts& o);
};

// Energy per component, in a fixed order (see component_names()).
struct EnergyBreakdown {
  Energy matrix;
  Energy vector;
  Energy tile_sram;
  Energy shared_sram;
  Energy noc;
  Energy hbm;
  Energy link;
  Energy active;  // active power x busy time: clocks, issue, register files (chip power.active)
  Energy static_energy;

  Energy total() const;
  Energy dynamic() const { return total() - static_energy; }
  std::vector<Energy> by_component() const;  // same order as component_names()
  EnergyBreakdown& operator+=(const EnergyBreakdown& o);
  // Every component times k (a sampled iteration standing for k real ones).
  EnergyBreakdown scaled(double k) const;
};

const std::vector<std::string>& component_names();

EnergyBreakdown price(const ActionCounts& counts, const EnergyTable& table, Power static_power,
                      Duration elapsed);
// The same, with the chip's active power paid over the span too (the span is busy time).
EnergyBreakdown price(const ActionCounts& counts, const EnergyTable& table, Power static_power,
                      Power active_power, Duration elapsed);

}  // namespace scoville::models
