#include "models/area/area_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace scoville::models {

const char* to_string(DieKind kind) { return kind == DieKind::kCompute ? "compute" : "io"; }

double bf16_equivalent_macs(const MatrixEngineParams& m, const AreaComponents& c) {
  const double lanes = static_cast<double>(m.rows * m.cols);
  const double bf16 = static_cast<double>(m.k_per_cycle[index_of(MathPrecision::kBf16)]);
  const double fp8 = static_cast<double>(m.k_per_cycle[index_of(MathPrecision::kFp8)]);
  const double fp4 = static_cast<double>(m.k_per_cycle[index_of(MathPrecision::kFp4)]);
  return lanes * std::max({bf16, fp8 * c.fp8_mac_share, fp4 * c.fp4_mac_share});
}

int64_t physical_tiles(const ChipParams& chip, const ChipAreaProfile& profile) {
  return std::max(chip.tiles.count, profile.physical_tiles.value_or(0));
}

int64_t physical_hbm_stacks(const ChipParams& chip, const ChipAreaProfile& profile) {
  return std::max(chip.hbm.stacks, profile.physical_hbm_stacks.value_or(0));
}

namespace {

Area logic_area(double transistors, const ProcessNode& node) {
  return Area(transistors / node.logic_density);
}

Area sram_area(Bytes capacity, const ProcessNode& node, double bit_over_bitcell) {
  return node.sram_bitcell * (capacity.si() * 8.0 * bit_over_bitcell);
}

double sram_factor(SramKind kind, const AreaComponents& c) {
  return kind == SramKind::kCache ? c.cache_bit_over_bitcell : c.scratchpad_bit_over_bitcell;
}

class Builder {
 public:
  explicit Builder(AreaBreakdown& out) : out_(out) {}
  void add(const std::string& component, DieKind die, double count, const std::string& unit,
           Area per_unit) {
    if (count <= 0 || per_unit.si() <= 0) return;
    out_.items.push_back({component, die, count, unit, per_unit, per_unit * count});
  }
  Area sum(DieKind die) const {
    Area s;
    for (const AreaItem& i : out_.items) {
      if (i.die == die) s += i.total;
    }
    return s;
  }

 private:
  AreaBreakdown& out_;
};

}  // namespace

AreaBreakdown estimate_area(const ChipParams& chip, const ChipAreaProfile& profile,
                            const AreaComponents& c, const AreaNodes& nodes, Area reticle_limit) {
  if (nodes.compute == nullptr) throw std::invalid_argument("estimate_area: no compute node");
  const bool has_io = profile.io_dies > 0;
  if (has_io && nodes.io == nullptr) throw std::invalid_argument("estimate_area: no I/O node");
  const auto tile_class = c.tile_classes.find(profile.tile_class);
  if (tile_class == c.tile_classes.end()) {
    throw std::invalid_argument("estimate_area: unknown tile class '" + profile.tile_class + "'");
  }
  const ProcessNode& cn = *nodes.compute;
  const ProcessNode& uncore_node = has_io ? *nodes.io : cn;
  const DieKind memory_die = has_io ? DieKind::kIo : DieKind::kCompute;

  AreaBreakdown out;
  out.chip = chip.name;
  Builder b(out);

  // Tiles: every physical tile, including those fused off for yield.
  const double tiles = static_cast<double>(physical_tiles(chip, profile));
  const double macs = bf16_equivalent_macs(chip.tiles.matrix, c);
  const double lanes = chip.tiles.vector.flops_per_cycle / 2.0;  // an FMA lane: 2 FLOP/cycle
  const TileClass& tc = tile_class->second;
  b.add("matrix engines", DieKind::kCompute, tiles * macs, "BF16 MAC lane",
        logic_area(c.matrix_mac_transistors, cn));
  b.add("vector units", DieKind::kCompute, tiles * lanes, "FP32 lane",
        logic_area(c.vector_lane_transistors, cn));
  b.add("tile control and NoC port", DieKind::kCompute, tiles, "tile",
        logic_area(tc.per_tile_transistors + tc.per_vector_lane_transistors * lanes, cn));
  b.add("other tile units (FP64, INT32)", DieKind::kCompute, tiles, "tile",
        logic_area(tc.other_units_transistors, cn));
  b.add("tile SRAM", DieKind::kCompute, tiles, "tile",
        sram_area(chip.tiles.sram, cn, sram_factor(profile.sram_kind, c)));
  b.add("register files", DieKind::kCompute, tiles, "tile",
        sram_area(profile.register_file_per_tile, cn, c.register_file_bit_over_bitcell));

  // Shared SRAM on the dies that hold it (a GPU's L2 on the compute die, AMD's Infinity Cache
  // on the I/O dies), at that die's node.
  // Shared SRAM on the dies that hold it (a GPU's L2 on the compute die, AMD's Infinity Cache
  // on the I/O dies), at that die's node; the profile's extra SRAM (disabled L2 slices, AMD's
  // per-XCD L2) sits on the compute dies.
  const double mib = 1024.0 * 1024.0;
  const double sram_bit = sram_factor(profile.sram_kind, c);
  if (has_io) {
    b.add("shared SRAM", DieKind::kIo, chip.shared_sram.capacity.si() / mib, "MiB",
          sram_area(Bytes(mib), *nodes.io, sram_bit));
    b.add("compute-die cache", DieKind::kCompute, profile.extra_shared_sram.si() / mib, "MiB",
          sram_area(Bytes(mib), cn, sram_bit));
  } else {
    const Bytes shared = chip.shared_sram.capacity + profile.extra_shared_sram;
    b.add("shared SRAM", DieKind::kCompute, shared.si() / mib, "MiB",
          sram_area(Bytes(mib), cn, sram_bit));
  }

  // Off-chip memory and links.
  const double stacks = static_cast<double>(physical_hbm_stacks(chip, profile));
  b.add("HBM controllers", memory_die, stacks, "stack",
        logic_area(c.hbm_controller_transistors, uncore_node));
  b.add("HBM PHYs", memory_die, stacks, "stack", c.hbm_phy_per_stack);
  const double lanes_per_port =
      std::ceil(chip.ports.bandwidth_per_port.si() / c.serdes_lane_payload.si() - 1e-9);
  const double link_lanes = static_cast<double>(chip.ports.count) * lanes_per_port;
  b.add("link controllers", memory_die, link_lanes, "lane",
        logic_area(c.serdes_controller_transistors_per_lane, uncore_node));
  b.add("link SerDes PHYs", memory_die, link_lanes, "lane", c.serdes_phy_per_lane);

  // Uncore on every die kind, as a fraction of what was counted on it.
  const Area compute_sum = b.sum(DieKind::kCompute);
  const Area io_sum = b.sum(DieKind::kIo);
  b.add("uncore (PCIe, clocks, power, pads)", DieKind::kCompute, c.uncore_fraction, "x counted",
        compute_sum);
  if (has_io) {
    b.add("uncore (PCIe, clocks, power, pads)", DieKind::kIo, c.uncore_fraction, "x counted",
          io_sum);
  }

  const auto die = [&](DieKind kind, const ProcessNode& node, int64_t count, Area published) {
    DieArea d;
    d.kind = kind;
    d.node = node.name;
    d.count = count;
    d.per_die = b.sum(kind) / static_cast<double>(count);
    d.published_per_die = published;
    d.over_reticle = d.per_die > reticle_limit;
    if (d.over_reticle) {
      out.notes.push_back(std::string(to_string(kind)) + " die of " +
                          std::to_string(static_cast<int>(std::lround(in_mm2(d.per_die)))) +
                          " mm^2 exceeds the reticle limit of " +
                          std::to_string(static_cast<int>(std::lround(in_mm2(reticle_limit)))) +
                          " mm^2: it must be split into more dies (raise compute_dies)");
    }
    out.dies.push_back(d);
  };
  die(DieKind::kCompute, cn, profile.compute_dies, profile.published_compute_die);
  if (has_io) die(DieKind::kIo, *nodes.io, profile.io_dies, profile.published_io_die);
  for (const AreaItem& i : out.items) out.total_silicon += i.total;
  return out;
}

}  // namespace scoville::models
