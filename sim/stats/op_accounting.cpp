#include "sim/stats/op_accounting.hpp"

#include <algorithm>

namespace scoville::stats {

Bound classify_bound(Duration elapsed, Duration compute_time, Duration hbm_time) {
  if (elapsed.si() <= 0) return Bound::kOther;
  const double compute_share = compute_time / elapsed;
  const double hbm_share = hbm_time / elapsed;
  if (compute_share >= 0.5 && compute_share >= hbm_share) return Bound::kCompute;
  if (hbm_share >= 0.5 && hbm_share > compute_share) return Bound::kHbm;
  return Bound::kOther;
}

models::ActionCounts count_actions(const models::OpRecord& r, const models::WorkDescriptor& w) {
  models::ActionCounts c;
  c.macs[models::index_of(w.math)] = r.planned.macs;
  c.vector_flops = r.planned.vector_flops;
  // The op's own traffic (a prefetch may serve part of it during the previous op).
  c.hbm = r.planned.hbm_read + r.planned.hbm_write;
  c.shared_sram = r.planned.shared_read + r.planned.shared_write;
  // Every byte entering or leaving a tile crosses the NoC once, and is written into and read
  // out of the tile's buffer once each.
  c.noc = c.hbm + c.shared_sram;
  c.tile_sram = c.noc * 2.0;
  return c;
}

OpResult account_op(const models::OpRecord& r, const models::WorkDescriptor& w,
                    const models::ChipParams& chip, int iteration, int layer,
                    const std::string& kind, Duration iteration_start) {
  OpResult op;
  op.iteration = iteration;
  op.layer = layer;
  op.name = w.label;
  op.kind = kind;
  op.math = w.work_class == models::WorkClass::kVector ? "vector" : to_string(w.math);
  op.start = r.start - iteration_start;
  op.duration = r.elapsed();
  op.flops = w.flops;
  op.hbm_bytes = r.planned.hbm_read + r.planned.hbm_write;
  op.shared_bytes = r.planned.shared_read + r.planned.shared_write;
  op.compute_time = cycles_to_duration(r.max_tile_compute_cycles, chip.tiles.clock * r.clock_scale);
  op.hbm_time = op.hbm_bytes / chip.hbm.peak_bandwidth();
  op.counts = count_actions(r, w);
  op.energy = models::price(op.counts, chip.energy, chip.power.static_power,
                            chip.power.active_power, op.duration);
  op.bound = classify_bound(op.duration, op.compute_time, op.hbm_time);
  return op;
}

}  // namespace scoville::stats
