#include "models/compute/tiling_policy.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace scoville::models {

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

double per_element(Bytes total, double elements) {
  return elements > 0 ? total.si() / elements : 0.0;
}

void accumulate(WorkBlock& into, const WorkBlock& b) {
  into.hbm_read += b.hbm_read;
  into.shared_read += b.shared_read;
  into.hbm_write += b.hbm_write;
  into.shared_write += b.shared_write;
  into.matrix_cycles += b.matrix_cycles;
  into.vector_cycles += b.vector_cycles;
  into.macs += b.macs;
  into.vector_flops += b.vector_flops;
}

WorkBlock scaled(const WorkBlock& b, double k) {
  WorkBlock out;
  out.hbm_read = b.hbm_read * k;
  out.shared_read = b.shared_read * k;
  out.hbm_write = b.hbm_write * k;
  out.shared_write = b.shared_write * k;
  out.matrix_cycles = b.matrix_cycles * k;
  out.vector_cycles = b.vector_cycles * k;
  out.macs = b.macs * k;
  out.vector_flops = b.vector_flops * k;
  out.math = b.math;
  return out;
}

}  // namespace

WorkBlock TilePlan::totals() const {
  WorkBlock sum;
  for (const auto& tile : blocks_per_tile) {
    for (const WorkBlock& b : tile) accumulate(sum, b);
  }
  return sum;
}

double TilePlan::max_tile_compute_cycles() const {
  double worst = 0;
  for (const auto& tile : blocks_per_tile) {
    double cycles = 0;
    for (const WorkBlock& b : tile) cycles += b.matrix_cycles + b.vector_cycles;
    worst = std::max(worst, cycles);
  }
  return worst;
}

TilingPolicy::TilingPolicy(const ChipParams& chip) : chip_(chip), engine_(chip.tiles.matrix) {}

TilePlan TilingPolicy::plan(const WorkDescriptor& work) const {
  TilePlan out;
  switch (work.work_class) {
    case WorkClass::kMatmul:
      out = plan_matmul(work);
      break;
    case WorkClass::kAttention:
      out = plan_attention(work);
      break;
    case WorkClass::kVector:
      out = plan_vector(work);
      break;
  }
  apply_activation_spill(work, out);
  return out;
}

bool TilingPolicy::uses_library_tiles(const WorkDescriptor& w) const {
  const LibraryTileParams& lib = chip_.tiles.library_tile;
  if (!lib.present() || w.work_class != WorkClass::kMatmul || w.instances >= chip_.tiles.count ||
      w.m < lib.rows || w.n < lib.cols) {
    return false;
  }
  // A library picks its largest tile only where those tiles fill every tile of the chip at least
  // once: at fewer it picks a smaller tile (AMD's tuned gfx942 tables use 16-64 x 64 tiles for
  // 64-256 rows, docs/chip-validation.md), which the grid below stands for.
  return w.instances * ceil_div(w.m, lib.rows) * ceil_div(w.n, lib.cols) >= chip_.tiles.count;
}

void TilingPolicy::append_blocks(std::vector<WorkBlock>& tile_blocks,
                                 const WorkBlock& total) const {
  const double slot = chip_.tiles.sram.si() / 2.0;
  const double bytes_in = total.hbm_read.si() + total.shared_read.si();
  // At least kMinBlocksPerTile blocks (of at least kMinBlockBytes) so that loading and computing
  // overlap even when a tile's share would fit one slot; at most kMaxBlocksPerTile.
  const double by_slot = std::ceil(bytes_in / slot);
  const double for_overlap = std::min(static_cast<double>(kMinBlocksPerTile),
                                      std::floor(bytes_in / static_cast<double>(kMinBlockBytes)));
  const double blocks =
      std::min(static_cast<double>(kMaxBlocksPerTile), std::max({1.0, by_slot, for_overlap}));
  const WorkBlock one = scaled(total, 1.0 / blocks);
  tile_blocks.reserve(tile_blocks.size() + static_cast<size_t>(blocks));
  for (int64_t i = 0; i < static_cast<int64_t>(blocks); ++i) tile_blocks.push_back(one);
}

TilePlan TilingPolicy::plan_matmul(const WorkDescriptor& w) const {
  const int64_t tiles = chip_.tiles.count;
  const double inst = static_cast<double>(w.instances);
  const double weight_b =
      per_element(w.stream_bytes, inst * static_cast<double>(w.k) * static_cast<double>(w.n));
  const double act_in_b = per_element(w.activation_in_bytes,
                                      inst * static_cast<double>(w.m) * static_cast<double>(w.k));
  const double act_out_b = per_element(w.activation_out_bytes,
                                       inst * static_cast<double>(w.m) * static_cast<double>(w.n));

  TilePlan plan;
  plan.blocks_per_tile.resize(static_cast<size_t>(tiles));

  // One whole instance (or several) per tile when there are at least as many instances as tiles.
  if (w.instances >= tiles) {
    for (int64_t t = 0; t < tiles; ++t) {
      const int64_t count = (t + 1) * w.instances / tiles - t * w.instances / tiles;
      if (count == 0) continue;
      const double c = static_cast<double>(count);
      WorkBlock total;
      total.math = w.math;
      total.matrix_cycles = c * engine_.cycles(w.m, w.n, w.k, w.math);
      total.macs =
          c * static_cast<double>(w.m) * static_cast<double>(w.n) * static_cast<double>(w.k);
      total.hbm_read = Bytes(c * weight_b * static_cast<double>(w.k * w.n));
      total.shared_read = Bytes(c * act_in_b * static_cast<double>(w.m * w.k));
      total.shared_write = Bytes(c * act_out_b * static_cast<double>(w.m * w.n));
      append_blocks(plan.blocks_per_tile[static_cast<size_t>(t)], total);
    }
    return plan;
  }

  // A GEMM library with fixed macro tiles (the chip file's library_tile), for GEMMs whose macro
  // tiles fill the chip: the output tiles of all instances are dealt to the tiles in turn, each
  // with its whole reduction, so the last wave may leave tiles idle. Smaller GEMMs get the grid
  // below: libraries pick smaller tiles or split the reduction for them.
  const LibraryTileParams& lib = chip_.tiles.library_tile;
  if (uses_library_tiles(w)) {
    const int64_t tiles_n = ceil_div(w.n, lib.cols);
    const int64_t per_instance = ceil_div(w.m, lib.rows) * tiles_n;
    std::vector<WorkBlock> per_tile(static_cast<size_t>(tiles));
    for (WorkBlock& b : per_tile) b.math = w.math;
    const double kk = static_cast<double>(w.k);
    for (int64_t u = 0; u < w.instances * per_instance; ++u) {
      const int64_t j = u % per_instance;
      const int64_t r = j / tiles_n;
      const int64_t c = j % tiles_n;
      const int64_t rows = std::min(lib.rows, w.m - r * lib.rows);
      const int64_t cols = std::min(lib.cols, w.n - c * lib.cols);
      const double rr = static_cast<double>(rows);
      const double cc = static_cast<double>(cols);
      WorkBlock& total = per_tile[static_cast<size_t>(u % tiles)];
      total.matrix_cycles += engine_.cycles(rows, cols, w.k, w.math);
      total.macs += rr * cc * kk;
      // The first macro tile of each column streams its weight panel from HBM; the others
      // find it in shared SRAM, as the grid's rows do.
      const Bytes weights(weight_b * kk * cc);
      if (r == 0) {
        total.hbm_read += weights;
      } else {
        total.shared_read += weights;
      }
      total.shared_read += Bytes(act_in_b * rr * kk);
      total.shared_write += Bytes(act_out_b * rr * cc);
    }
    for (int64_t t = 0; t < tiles; ++t) {
      const WorkBlock& total = per_tile[static_cast<size_t>(t)];
      if (total.macs > 0) append_blocks(plan.blocks_per_tile[static_cast<size_t>(t)], total);
    }
    return plan;
  }

  // Otherwise each instance is cut into the members of the grid that minimises the slowest
  // member's time (compute, or its share of the on-chip traffic), and the members of all
  // instances are dealt to the tiles in turn. tiles / instances members each (rounded down) keep
  // every tile busy when that divides; otherwise up to instances - 1 tiles would idle (111
  // experts on 148 SMs: a quarter of them), which a grouped GEMM's tile scheduler does not leave,
  // so more members per instance are tried and the plan whose most loaded tile has the least
  // work (whole members times a member's time) is kept.
  const MatmulGrid grid = balanced_grid(w, weight_b, act_in_b);
  const int64_t rows_per = ceil_div(w.m, grid.rows);
  const int64_t cols_per = ceil_div(w.n, grid.cols);
  const int64_t depth_per = ceil_div(w.k, grid.depth);
  // Instance i's members start at tile i x stride: its group of tiles when whole groups fit (as
  // before the dealing), otherwise right after the previous instance's members, wrapping around.
  const int64_t stride = grid.budget == tiles / w.instances ? grid.budget : grid.members();
  std::vector<WorkBlock> per_tile(static_cast<size_t>(tiles));
  std::vector<bool> used(static_cast<size_t>(tiles), false);
  for (int64_t i = 0; i < w.instances; ++i) {
    int64_t placed = 0;  // members of instance i placed so far
    for (int64_t r = 0; r < grid.rows; ++r) {
      const int64_t rows = std::min(rows_per, w.m - r * rows_per);
      for (int64_t c = 0; c < grid.cols; ++c) {
        const int64_t cols = std::min(cols_per, w.n - c * cols_per);
        for (int64_t d = 0; d < grid.depth; ++d) {
          const int64_t depth = std::min(depth_per, w.k - d * depth_per);
          if (rows <= 0 || cols <= 0 || depth <= 0) continue;
          const double rr = static_cast<double>(rows);
          const double cc = static_cast<double>(cols);
          const double dd = static_cast<double>(depth);
          WorkBlock member;
          member.math = w.math;
          member.matrix_cycles = engine_.cycles(rows, cols, depth, w.math);
          member.macs = rr * cc * dd;
          const Bytes weights(weight_b * dd * cc);
          // The first row of the grid streams a weight panel from HBM; the other rows get the
          // same panel from shared SRAM (multicast).
          if (r == 0) {
            member.hbm_read += weights;
          } else {
            member.shared_read += weights;
          }
          member.shared_read += Bytes(act_in_b * rr * dd);
          member.shared_write += Bytes(act_out_b * rr * cc);
          if (grid.depth > 1) {  // split-K: add this member's partial sums
            member.vector_flops = rr * cc;
            member.vector_cycles = member.vector_flops / chip_.tiles.vector.flops_per_cycle;
          }
          const size_t tile = static_cast<size_t>((i * stride + placed++) % tiles);
          WorkBlock& total = per_tile[tile];
          total.math = w.math;
          accumulate(total, member);
          used[tile] = true;
        }
      }
    }
  }
  for (int64_t t = 0; t < tiles; ++t) {
    if (used[static_cast<size_t>(t)]) {
      append_blocks(plan.blocks_per_tile[static_cast<size_t>(t)], per_tile[static_cast<size_t>(t)]);
    }
  }
  return plan;
}

TilingPolicy::MatmulGrid TilingPolicy::balanced_grid(const WorkDescriptor& w, double weight_b,
                                                     double act_in_b) const {
  const int64_t tiles = chip_.tiles.count;
  const int64_t group = tiles / w.instances;
  MatmulGrid best = choose_grid(w, group, weight_b, act_in_b);
  if (w.instances * group == tiles) return best;
  // The most loaded tile's work: its whole members times one member's time.
  const auto load = [&](const MatmulGrid& g) {
    const int64_t members = w.instances * g.members();
    return static_cast<double>(ceil_div(members, tiles)) * g.time;
  };
  double best_load = load(best);
  const int64_t most = kMaxMemberSpread * ceil_div(tiles, w.instances);
  for (int64_t g = group + 1; g <= most; ++g) {
    const MatmulGrid candidate = choose_grid(w, g, weight_b, act_in_b);
    const double l = load(candidate);
    if (l < best_load * (1 - 1e-9)) {
      best = candidate;
      best_load = l;
    }
  }
  return best;
}

TilingPolicy::MatmulGrid TilingPolicy::choose_grid(const WorkDescriptor& w, int64_t group,
                                                   double weight_b, double act_in_b) const {
  const MatrixEngineParams& engine = chip_.tiles.matrix;
  const double clock = chip_.tiles.matrix_clock(w.math).si();
  // Each member's fair share of the on-chip bandwidth that feeds it.
  const double feed_bandwidth =
      (chip_.shared_sram.bandwidth.si() + chip_.hbm.peak_bandwidth().si()) /
      static_cast<double>(chip_.tiles.count);
  MatmulGrid best;
  double best_time = -1;
  double best_traffic = 0;
  // No member smaller than the library's smallest tile (the engine's block where none is stated),
  // and the reduction split no more ways than the library splits it.
  const LibraryTileParams& lib = chip_.tiles.library_tile;
  const int64_t piece_cols = lib.min_cols > 0 ? lib.min_cols : engine.cols;
  const int64_t piece_rows = lib.min_rows > 0 ? lib.min_rows : engine.rows;
  const int64_t max_cols = std::min(group, ceil_div(w.n, piece_cols));
  for (int64_t cols = 1; cols <= max_cols; ++cols) {
    const int64_t max_rows = std::min(group / cols, ceil_div(w.m, piece_rows));
    for (int64_t rows = 1; rows <= max_rows; ++rows) {
      // Spare members split the reduction, but only when the rows cannot use them.
      int64_t depth = rows == max_rows ? std::max<int64_t>(1, group / (cols * rows)) : 1;
      if (lib.max_split_k > 0) depth = std::min(depth, lib.max_split_k);
      const int64_t m = ceil_div(w.m, rows);
      const int64_t n = ceil_div(w.n, cols);
      const int64_t k = ceil_div(w.k, depth);
      const double compute = engine_.cycles(m, n, k, w.math) / clock;
      const double traffic =
          weight_b * static_cast<double>(k * n) + act_in_b * static_cast<double>(m * k);
      const double time = std::max(compute, traffic / feed_bandwidth);
      // Strictly faster wins; among equally fast grids the one moving fewer bytes (the estimate
      // of the feed is optimistic, so traffic that does not show in `time` still costs), then the
      // earlier (fewer columns, no split-K).
      const bool faster = time < best_time * (1 - 1e-9);
      const bool as_fast = !faster && time <= best_time * (1 + 1e-9);
      if (best_time < 0 || faster || (as_fast && traffic < best_traffic * (1 - 1e-9))) {
        best_time = time;
        best_traffic = traffic;
        best = MatmulGrid{rows, cols, depth, time, group};
      }
    }
  }
  return best;
}

TilePlan TilingPolicy::plan_attention(const WorkDescriptor& w) const {
  const int64_t tiles = chip_.tiles.count;
  const double inst = static_cast<double>(w.instances);
  const double m = static_cast<double>(w.m);
  const double n = static_cast<double>(w.n);
  const double kk = static_cast<double>(w.k);
  const double vector_fpc = chip_.tiles.vector.flops_per_cycle;
  // Causal masking and window caps make the useful work a fraction of the full m x n scores.
  const double full_flops = 4.0 * m * n * kk * inst;
  const double useful = full_flops > 0 ? std::min(1.0, w.flops.si() / full_flops) : 0.0;

  auto unit_part = [&](int64_t keys) {
    WorkBlock b;
    b.math = w.math;
    const double fraction = n > 0 ? static_cast<double>(keys) / n : 0.0;
    b.matrix_cycles =
        (engine_.cycles(w.m, keys, w.k, w.math) + engine_.cycles(w.m, w.k, keys, w.math)) * useful;
    b.macs = 2.0 * m * static_cast<double>(keys) * kk * useful;
    b.hbm_read = Bytes(w.stream_bytes.si() / inst * fraction);
    b.hbm_write = Bytes(w.hbm_write_bytes.si() / inst * fraction);
    b.shared_read = Bytes(w.activation_in_bytes.si() / inst * fraction);
    b.shared_write = Bytes(w.activation_out_bytes.si() / inst * fraction);
    return b;
  };

  TilePlan plan;
  plan.blocks_per_tile.resize(static_cast<size_t>(tiles));
  if (w.instances >= tiles) {
    for (int64_t t = 0; t < tiles; ++t) {
      const int64_t first = t * w.instances / tiles;
      const int64_t last = (t + 1) * w.instances / tiles;
      if (last == first) continue;
      const WorkBlock one = unit_part(w.n);
      append_blocks(plan.blocks_per_tile[static_cast<size_t>(t)],
                    scaled(one, static_cast<double>(last - first)));
    }
    return plan;
  }
  // Fewer units than tiles: each unit's keys are split over `members` tiles (flash-decoding),
  // dealt in turn. tiles / units members each when that divides; otherwise finer splits are
  // tried, as for matmul instances, and the one whose most loaded tile has the fewest keys kept
  // (a split-KV decode kernel picks its splits to fill the SMs).
  const int64_t group = tiles / w.instances;
  int64_t members = group;
  if (w.instances * group != tiles) {
    const auto load = [&](int64_t split) {
      return static_cast<double>(ceil_div(w.instances * split, tiles)) *
             static_cast<double>(ceil_div(w.n, split));
    };
    double best = load(group);
    const int64_t most = std::min(w.n, kMaxMemberSpread * ceil_div(tiles, w.instances));
    for (int64_t split = group + 1; split <= most; ++split) {
      const double l = load(split);
      if (l < best * (1 - 1e-9)) {
        best = l;
        members = split;
      }
    }
  }
  const int64_t keys_per = ceil_div(w.n, members);
  std::vector<WorkBlock> per_tile(static_cast<size_t>(tiles));
  std::vector<bool> used(static_cast<size_t>(tiles), false);
  for (int64_t u = 0; u < w.instances; ++u) {
    for (int64_t r = 0; r < members; ++r) {
      const int64_t keys = std::min(keys_per, w.n - r * keys_per);
      if (keys <= 0) break;
      WorkBlock b = unit_part(keys);
      if (members > 1) {  // combine partial softmax results (flash-decoding)
        b.vector_flops += m * kk;
        b.vector_cycles = b.vector_flops / vector_fpc;
      }
      // Unit u's parts start at tile u x members, as whole groups did; finer splits wrap around.
      const size_t tile = static_cast<size_t>((u * members + r) % tiles);
      per_tile[tile].math = w.math;
      accumulate(per_tile[tile], b);
      used[tile] = true;
    }
  }
  for (int64_t t = 0; t < tiles; ++t) {
    if (used[static_cast<size_t>(t)]) {
      append_blocks(plan.blocks_per_tile[static_cast<size_t>(t)], per_tile[static_cast<size_t>(t)]);
    }
  }
  return plan;
}

TilePlan TilingPolicy::plan_vector(const WorkDescriptor& w) const {
  const int64_t tiles = chip_.tiles.count;
  const double share = 1.0 / static_cast<double>(tiles);
  WorkBlock b;
  b.vector_flops = w.flops.si() * share;
  b.vector_cycles = b.vector_flops / chip_.tiles.vector.flops_per_cycle;
  b.hbm_read = w.stream_bytes * share;
  b.hbm_write = w.hbm_write_bytes * share;
  b.shared_read = w.activation_in_bytes * share;
  b.shared_write = w.activation_out_bytes * share;
  TilePlan plan;
  plan.blocks_per_tile.resize(static_cast<size_t>(tiles));
  for (auto& tile : plan.blocks_per_tile) append_blocks(tile, b);
  return plan;
}

void TilingPolicy::apply_activation_spill(const WorkDescriptor& w, TilePlan& plan) const {
  const Bytes footprint = w.activation_in_bytes + w.activation_out_bytes;
  if (footprint <= chip_.shared_sram.capacity) return;
  const WorkBlock sum = plan.totals();
  for (auto& tile : plan.blocks_per_tile) {
    if (tile.empty()) continue;
    WorkBlock tile_total;
    tile_total.math = tile.front().math;
    for (WorkBlock& b : tile) {
      if (sum.shared_read.si() > 0) {
        b.hbm_read += w.activation_in_bytes * (b.shared_read / sum.shared_read);
      }
      if (sum.shared_write.si() > 0) {
        b.hbm_write += w.activation_out_bytes * (b.shared_write / sum.shared_write);
      }
      accumulate(tile_total, b);
    }
    // The spilled reads add to each block's input: cut the tile again so that no block
    // outgrows a buffer slot.
    tile.clear();
    append_blocks(tile, tile_total);
  }
}

}  // namespace scoville::models
