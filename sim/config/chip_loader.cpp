#include "sim/config/chip_loader.hpp"

#include <cmath>
#include <filesystem>

#include "models/chip/matrix_clocks.hpp"
#include "sim/base/yaml_reader.hpp"
#include "sim/config/power_management_loader.hpp"

namespace scoville::config {

namespace {

// Bounds on what is elaborated one SystemC module per unit, so that a bad file is refused up
// front instead of running for hours: simulation time grows linearly with tiles (a 1024-tile chip
// took 49 s and an 8192-tile one 302 s for a 128-token prompt on the 2-core build machine, against
// 5 s for H200's 132), and each HBM channel and SRAM bank is a module with its own queue. A chip
// with more compute units than kMaxTiles is described with coarser tiles (one tile per cluster).
constexpr int64_t kMaxTiles = 4096;
constexpr int64_t kMaxHbmStacks = 64;          // HBM4 parts carry 8-16 [SPEC]
constexpr int64_t kMaxChannelsPerStack = 128;  // HBM4: 32 channels, 64 pseudo-channels [SPEC]
constexpr int64_t kMaxBanks = 4096;            // shared SRAM slices
constexpr int64_t kMaxPorts = 4096;            // chip-to-chip ports

models::MatrixEngineParams read_matrix_engine(MapReader r) {
  models::MatrixEngineParams e;
  e.rows = r.integer("rows", 1, 65536);
  e.cols = r.integer("cols", 1, 65536);
  MapReader rates = r.map("k_per_cycle");
  for (const std::string& key : rates.keys()) {
    const auto precision = math_precision_from_string(key);
    if (!precision) {
      const std::string suggestion = closest_match(key, math_precision_names());
      rates.error(key, "unknown math precision '" + key + "'" +
                           (suggestion.empty() ? "" : "; did you mean '" + suggestion + "'?") +
                           " (known: bf16, fp8, fp4)");
      continue;
    }
    e.k_per_cycle[models::index_of(*precision)] = rates.integer(key, 1, 65536);
  }
  // Only when the map is there: a missing section has been reported already, once.
  if (r.has_value("k_per_cycle") && !e.supports(MathPrecision::kBf16) &&
      !e.supports(MathPrecision::kFp8) && !e.supports(MathPrecision::kFp4)) {
    rates.error("", "at least one math precision (bf16, fp8, fp4) must be given");
  }
  rates.finish();
  e.pipeline_latency_cycles = r.integer("pipeline_latency_cycles", 0, 1'000'000);
  // Optional; absent (0) means the tile clock.
  e.sustained_clock =
      r.quantity_or<Frequency>("sustained_clock", Frequency(0), Range::kNonNegative);
  // Optional (default bf16): the precision the sustained clock was measured on.
  if (r.has_value("sustained_clock_precision")) {
    const std::string name = r.string("sustained_clock_precision");
    const auto precision = math_precision_from_string(name);
    if (!precision) {
      r.error("sustained_clock_precision",
              "unknown math precision '" + name + "' (known: bf16, fp8, fp4)");
    } else if (!e.supports(*precision)) {
      r.error("sustained_clock_precision",
              "the matrix engine has no " + name + " rate (k_per_cycle)");
    } else {
      e.sustained_clock_precision = *precision;
    }
  }
  r.finish();
  return e;
}

models::TileParams read_tiles(MapReader r) {
  models::TileParams t;
  t.count = r.integer("count", 1, kMaxTiles);
  t.clock = r.quantity<Frequency>("clock");
  t.matrix = read_matrix_engine(r.map("matrix_engine"));
  // Optional: the GEMM library's macro tile (docs/schemas.md).
  if (std::optional<MapReader> lib = r.optional_map("library_tile")) {
    t.library_tile.rows = lib->integer("rows", 1, 65536);
    t.library_tile.cols = lib->integer("cols", 1, 65536);
    t.library_tile.min_rows = lib->integer_or("min_rows", 0, 1, 65536);
    t.library_tile.min_cols = lib->integer_or("min_cols", 0, 1, 65536);
    t.library_tile.max_split_k = lib->integer_or("max_split_k", 0, 1, 65536);
    lib->finish();
  }
  if (t.matrix.sustained_clock > t.clock) {
    r.error("matrix_engine.sustained_clock", "must not exceed the tile clock");
  }
  MapReader vector = r.map("vector_unit");
  t.vector.flops_per_cycle = vector.number("flops_per_cycle", 1e-3, 1e9);
  vector.finish();
  t.sram = r.quantity<Bytes>("sram");
  t.sram_bandwidth = r.quantity<Bandwidth>("sram_bandwidth");
  t.prefetch_next_op = r.boolean_or("prefetch_next_op", false);
  r.finish();
  return t;
}

bool whole_bytes(Bytes b) { return b.si() == static_cast<double>(static_cast<uint64_t>(b.si())); }

models::HbmTimingParams read_hbm_timing(MapReader r) {
  models::HbmTimingParams t;
  t.pseudo_channels = r.integer("pseudo_channels", 1, 64);
  t.bank_groups = r.integer("bank_groups", 1, 64);
  t.banks_per_group = r.integer("banks_per_group", 1, 64);
  t.row_bytes = r.quantity<Bytes>("row_bytes");
  t.burst_bytes = r.quantity<Bytes>("burst_bytes");
  t.t_rcd = r.quantity<Duration>("t_rcd", Range::kNonNegative);
  t.t_rp = r.quantity<Duration>("t_rp", Range::kNonNegative);
  t.t_ras = r.quantity<Duration>("t_ras", Range::kNonNegative);
  t.t_ccd_l = r.quantity<Duration>("t_ccd_l", Range::kNonNegative);
  t.t_rrd = r.quantity<Duration>("t_rrd", Range::kNonNegative);
  t.t_faw = r.quantity<Duration>("t_faw", Range::kNonNegative);
  t.t_wr = r.quantity<Duration>("t_wr", Range::kNonNegative);
  t.t_wtr = r.quantity<Duration>("t_wtr", Range::kNonNegative);
  t.t_rtw = r.quantity<Duration>("t_rtw", Range::kNonNegative);
  t.t_refi = r.quantity<Duration>("t_refi");
  t.t_rfc = r.quantity<Duration>("t_rfc", Range::kNonNegative);
  if (t.burst_bytes.si() > 0 && !whole_bytes(t.burst_bytes)) {
    r.error("burst_bytes", "must be a whole number of bytes");
  }
  if (t.row_bytes.si() > 0 && t.burst_bytes.si() > 0 &&
      (!whole_bytes(t.row_bytes) || std::fmod(t.row_bytes.si(), t.burst_bytes.si()) != 0.0)) {
    r.error("row_bytes", "must be a whole multiple of burst_bytes");
  }
  if (t.t_refi.si() > 0 && !(t.t_rfc < t.t_refi * 0.5)) {
    r.error("t_rfc", "must be less than half of t_refi (refresh would leave no time for data)");
  }
  r.finish();
  return t;
}

models::HbmParams read_hbm(MapReader r) {
  models::HbmParams h;
  h.stacks = r.integer("stacks", 1, kMaxHbmStacks);
  h.channels_per_stack = r.integer("channels_per_stack", 1, kMaxChannelsPerStack);
  h.bandwidth_per_channel = r.quantity<Bandwidth>("bandwidth_per_channel");
  h.capacity = r.quantity<Bytes>("capacity");
  h.latency = r.quantity<Duration>("latency", Range::kNonNegative);
  h.interleave_granule = r.quantity<Bytes>("interleave_granule");
  if (h.interleave_granule.si() > 0 && !whole_bytes(h.interleave_granule)) {
    r.error("interleave_granule", "must be a whole number of bytes");
  }
  h.timing = read_hbm_timing(r.map("timing"));
  r.finish();
  return h;
}

ChipSpec read_chip_document(const YAML::Node& root, const std::string& file) {
  Diagnostics diagnostics;
  MapReader top(root, file, "", diagnostics);
  MapReader r = top.map("chip");
  top.finish();

  ChipSpec spec;
  spec.file = file;
  models::ChipParams& p = spec.params;
  p.name = r.string("name");
  p.description = r.string_or("description", "");
  p.tiles = read_tiles(r.map("tiles"));
  {
    MapReader s = r.map("shared_sram");
    p.shared_sram.capacity = s.quantity<Bytes>("capacity");
    p.shared_sram.bandwidth = s.quantity<Bandwidth>("bandwidth");
    p.shared_sram.banks = s.integer("banks", 1, kMaxBanks);
    s.finish();
  }
  p.hbm = read_hbm(r.map("hbm"));  // before the NoC, whose mesh edges carry the stacks' ports
  {
    MapReader n = r.map("noc");
    p.noc.latency = n.quantity<Duration>("latency", Range::kNonNegative);
    if (n.choice_or("topology", "crossbar", {"crossbar", "mesh"}) == "mesh") {
      p.noc.topology = models::NocTopology::kMesh;
      p.noc.cols = n.integer("cols", 1, kMaxTiles);
      p.noc.rows = n.integer("rows", 1, kMaxTiles);
      p.noc.link_bandwidth = n.quantity<Bandwidth>("link_bandwidth");
      p.noc.hop_latency = n.quantity<Duration>("hop_latency", Range::kNonNegative);
      if (diagnostics.empty() && p.noc.cols * p.noc.rows < p.tiles.count) {
        n.error("cols", "a " + std::to_string(p.noc.cols) + " x " + std::to_string(p.noc.rows) +
                            " mesh has fewer routers than the " + std::to_string(p.tiles.count) +
                            " tiles; expected cols x rows >= tiles.count");
      }
      if (diagnostics.empty() && (p.hbm.stacks + 1) / 2 > p.noc.rows) {
        n.error("rows", "the " + std::to_string(p.hbm.stacks) +
                            " HBM stacks' memory ports sit on the west and east edges, at most one "
                            "per row; expected rows >= " +
                            std::to_string((p.hbm.stacks + 1) / 2));
      }
    }
    n.finish();
  }
  {
    MapReader ports = r.map("ports");
    p.ports.count = ports.integer("count", 0, kMaxPorts);
    p.ports.bandwidth_per_port = ports.quantity<Bandwidth>("bandwidth_per_port");
    if (diagnostics.empty() && p.noc.topology == models::NocTopology::kMesh &&
        (p.ports.count + 1) / 2 > p.noc.cols) {
      ports.error("count", "the " + std::to_string(p.ports.count) +
                               " chip-to-chip ports sit on the mesh's north and south edges, at "
                               "most one per column; expected count <= " +
                               std::to_string(2 * p.noc.cols));
    }
    ports.finish();
  }
  {
    MapReader power = r.map("power");
    p.power.tdp = power.quantity<Power>("tdp");
    p.power.static_power = power.quantity<Power>("static", Range::kNonNegative);
    if (diagnostics.empty() && p.power.static_power > p.power.tdp) {
      power.error("static", "static power exceeds the TDP");
    }
    if (power.has("active")) {
      p.power.active_power = power.quantity<Power>("active", Range::kNonNegative);
      if (diagnostics.empty() && p.power.static_power + p.power.active_power > p.power.tdp) {
        power.error("active", "static plus active power exceeds the TDP");
      }
    }
    power.finish();
  }
  if (std::optional<MapReader> pm = r.optional_map("power_management")) {
    p.power.management = read_power_management(*pm, diagnostics, p.power.tdp, p.tiles.clock);
  }
  spec.energy_table = r.string("energy");
  r.finish();
  diagnostics.throw_if_any();
  return spec;
}

models::EnergyTable read_energy_document(const YAML::Node& root, const std::string& file) {
  Diagnostics diagnostics;
  MapReader top(root, file, "", diagnostics);
  MapReader r = top.map("energy");
  top.finish();
  models::EnergyTable t;
  t.name = r.string("name");
  MapReader mac = r.map("mac");
  for (MathPrecision p : {MathPrecision::kBf16, MathPrecision::kFp8, MathPrecision::kFp4}) {
    t.per_mac[models::index_of(p)] = mac.quantity<Energy>(to_string(p));
  }
  mac.finish();
  t.per_vector_flop = r.quantity<Energy>("vector_flop");
  t.tile_sram = r.quantity<EnergyPerBit>("tile_sram");
  t.shared_sram = r.quantity<EnergyPerBit>("shared_sram");
  t.noc = r.quantity<EnergyPerBit>("noc");
  t.hbm = r.quantity<EnergyPerBit>("hbm");
  // Optional: the chip's side of each HBM bit (absent: not priced, as before they existed).
  t.hbm_phy = r.quantity_or<EnergyPerBit>("hbm_phy", EnergyPerBit(0), Range::kNonNegative);
  t.hbm_cache = r.quantity_or<EnergyPerBit>("hbm_cache", EnergyPerBit(0), Range::kNonNegative);
  t.link = r.quantity<EnergyPerBit>("link");
  r.finish();
  diagnostics.throw_if_any();
  return t;
}

}  // namespace

ChipSpec parse_chip(const std::string& path) {
  return read_chip_document(load_yaml_file(path), path);
}

ChipSpec parse_chip_string(const std::string& yaml, const std::string& display_name) {
  return read_chip_document(load_yaml_string(yaml, display_name), display_name);
}

models::EnergyTable parse_energy(const std::string& path) {
  return read_energy_document(load_yaml_file(path), path);
}

models::EnergyTable parse_energy_string(const std::string& yaml, const std::string& display_name) {
  return read_energy_document(load_yaml_string(yaml, display_name), display_name);
}

models::ChipParams load_chip(const std::string& name_or_path, const DataPaths& paths) {
  const std::string path = paths.resolve(name_or_path, "arch/chips");
  require_known(name_or_path, path, "arch/chips", paths, "chip");
  ChipSpec spec = parse_chip(path);
  const std::string energy_path = paths.resolve(spec.energy_table, "arch/energy");
  try {
    require_known(spec.energy_table, energy_path, "arch/energy", paths, "energy table");
  } catch (const InputError& e) {
    // Point at the chip file's reference, which is what the user has to fix.
    throw InputError(SourceLocation{path, 0, 0}, "chip.energy", e.diagnostics().front().message);
  }
  spec.params.energy = parse_energy(energy_path);
  models::resolve_matrix_clocks(spec.params);
  return spec.params;
}

}  // namespace scoville::config
