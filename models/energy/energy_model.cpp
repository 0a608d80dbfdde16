#include "models/energy/energy_model.hpp"

namespace scoville::models {

ActionCounts& ActionCounts::operator+=(const ActionCounts& o) {
  for (size_t i = 0; i < macs.size(); ++i) macs[i] += o.macs[i];
  vector_flops += o.vector_flops;
  tile_sram += o.tile_sram;
  shared_sram += o.shared_sram;
  noc += o.noc;
  hbm += o.hbm;
  link += o.link;
  return *this;
}

Energy EnergyBreakdown::total() const {
  Energy sum;
  for (Energy e : by_component()) sum += e;
  return sum;
}

std::vector<Energy> EnergyBreakdown::by_component() const {
  return {matrix, vector, tile_sram, shared_sram, noc, hbm, link, active, static_energy};
}

EnergyBreakdown& EnergyBreakdown::operator+=(const EnergyBreakdown& o) {
  matrix += o.matrix;
  vector += o.vector;
  tile_sram += o.tile_sram;
  shared_sram += o.shared_sram;
  noc += o.noc;
  hbm += o.hbm;
  link += o.link;
  active += o.active;
  static_energy += o.static_energy;
  return *this;
}

EnergyBreakdown EnergyBreakdown::scaled(double k) const {
  EnergyBreakdown out;
  out.matrix = matrix * k;
  out.vector = vector * k;
  out.tile_sram = tile_sram * k;
  out.shared_sram = shared_sram * k;
  out.noc = noc * k;
  out.hbm = hbm * k;
  out.link = link * k;
  out.active = active * k;
  out.static_energy = static_energy * k;
  return out;
}

const std::vector<std::string>& component_names() {
  static const std::vector<std::string> names = {
      "matrix", "vector", "tile_sram", "shared_sram", "noc", "hbm", "link", "active", "static"};
  return names;
}

EnergyBreakdown price(const ActionCounts& counts, const EnergyTable& table, Power static_power,
                      Duration elapsed) {
  EnergyBreakdown e;
  for (size_t i = 0; i < counts.macs.size(); ++i) e.matrix += table.per_mac[i] * counts.macs[i];
  e.vector = table.per_vector_flop * counts.vector_flops;
  e.tile_sram = table.tile_sram * counts.tile_sram;
  // A GPU's HBM bytes are also written into and read out of its L2 (hbm_cache) and cross its
  // PHY and memory controller (hbm_phy): the chip's side of the memory path, paid per HBM bit.
  e.shared_sram = table.shared_sram * counts.shared_sram + table.hbm_cache * counts.hbm;
  e.noc = table.noc * counts.noc;
  e.hbm = table.hbm * counts.hbm + table.hbm_phy * counts.hbm;
  e.link = table.link * counts.link;
  e.static_energy = static_power * elapsed;
  return e;
}

EnergyBreakdown price(const ActionCounts& counts, const EnergyTable& table, Power static_power,
                      Power active_power, Duration elapsed) {
  EnergyBreakdown e = price(counts, table, static_power, elapsed);
  e.active = active_power * elapsed;
  return e;
}

}  // namespace scoville::models
