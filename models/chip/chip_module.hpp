// A chip: tiles, an HBM controller with its channels, and shared SRAM, joined over TLM. It runs a
// program of ops in order; each op is tiled by the TilingPolicy, all tiles start together, and
// the op ends when the last tile has finished (a kernel boundary). Per-op records hold the
// timing and the op's planned work; the memories count what they actually served.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "models/chip/chip_params.hpp"
#include "models/chip/port_dma_module.hpp"
#include "models/compute/tile_module.hpp"
#include "models/compute/tiling_policy.hpp"
#include "models/compute/work_descriptor.hpp"
#include "models/memory/memory_controller_module.hpp"
#include "models/noc/mesh_noc_model.hpp"

namespace scoville::models {

struct OpRecord {
  Duration start;
  Duration end;
  WorkBlock planned;  // sums over the op's blocks (compute, MACs, bytes)
  double max_tile_compute_cycles = 0;
  double clock_scale = 1.0;  // tile clocks / configured clocks while the op ran (DVFS)
  // Sub-op control: the op switched to `low_clock_scale` for its last `low_clock_time`, doing
  // `low_work_share` of its work there (0 and 0 when it ran at one clock).
  double low_clock_scale = 1.0;
  Duration low_clock_time;
  double low_work_share = 0;

  Duration elapsed() const { return end - start; }
  // end - start taken in SystemC's integer time: the same bits wherever in simulated time the op
  // ran (end - start in seconds rounds differently at other magnitudes).
  Duration exact_elapsed;
};

// What power management decides before an op starts: the clock to run it at, relative to the
// configured one.
struct OpControl {
  double clock_scale = 1.0;
  // Sub-op control: switch the tiles to `low_clock_scale` once the op has run `switch_after`
  // (when low_work_share > 0; the share the governor planned at the lower clock).
  double low_clock_scale = 1.0;
  double low_work_share = 0;
  Duration switch_after;
};
// Called before op `index` starts, with the records of the ops done so far.
using OpGovernor = std::function<OpControl(size_t index, const std::vector<OpRecord>& done)>;
// Told after each op of the program has finished, with the count done so far (progress).
using OpDoneListener = std::function<void(size_t done)>;

class ChipModule : public sc_core::sc_module {
 public:
  ChipModule(const sc_core::sc_module_name& name, const ChipParams& params);

  // The ops to execute, in order, once the simulation starts. Call before sc_start(), or
  // between sc_start() calls to run another program on the same design (a process elaborates
  // once; the system engine runs every iteration this way). A later program starts at the next
  // multiple of the HBM refresh interval, so that identical programs meet the same refresh
  // phase and take identical time; records are absolute, as always.
  void set_program(std::vector<WorkDescriptor> program);
  // Optional; without one every op runs at the configured clocks with no stall.
  void set_governor(OpGovernor governor) { governor_ = std::move(governor); }
  // Optional; watches only (one call per op, nothing it does changes the simulation).
  void set_op_done_listener(OpDoneListener listener) { op_done_ = std::move(listener); }
  const std::vector<OpRecord>& records() const { return records_; }
  const ChipParams& params() const { return params_; }
  bool finished() const { return records_.size() == program_.size(); }
  // Bytes read plus written, as served by the channels since construction (a prefetch counts
  // when issued, so per-op windows would misattribute them; totals are exact).
  Bytes hbm_bytes_served() const;
  Bytes shared_sram_bytes_served() const;
  // Chip-to-chip traffic that runs alongside the program (e.g. a collective overlapping
  // compute): each transfer moves its bytes between HBM and the ports from its start time,
  // sharing HBM channels and mesh links with the tiles. Needs ports (params().ports.count > 0).
  void submit_port_transfers(const std::vector<PortTransfer>& transfers);
  const std::vector<PortTransferRecord>& port_records() const;
  // Bytes x mesh links crossed by HBM and port traffic (0 on a crossbar NoC).
  double noc_byte_hops() const { return mesh_ ? mesh_->byte_hops() : 0.0; }

  // Timelines: record what each tile and HBM channel did within `window`. Call before
  // sc_start(); without it nothing is recorded. HBM is one track per channel when the chip has
  // at most kMaxHbmChannelTracks channels, else one per stack (the union of its channels' busy
  // spans; channel c belongs to stack c / channels_per_stack).
  static constexpr int64_t kMaxHbmChannelTracks = 32;
  void record_activity(const ActivityWindow& window);
  // Tiles first (tile_0 ...), then the HBM tracks; empty unless record_activity was called.
  const std::vector<ActivityTrack>& activity() const { return activity_; }

 private:
  void control_thread();
  void run_program();
  void tile_done();

  ChipParams params_;
  TilingPolicy policy_;
  std::unique_ptr<MemoryControllerModule> hbm_;
  std::unique_ptr<MemoryControllerModule> shared_sram_;
  std::unique_ptr<MeshNocModel> mesh_;  // only for a mesh NoC; shared by all tiles
  std::vector<std::unique_ptr<TileModule>> tiles_;
  std::unique_ptr<PortDmaModule> port_dma_;  // only when the chip has chip-to-chip ports
  std::vector<WorkDescriptor> program_;
  std::vector<OpRecord> records_;
  OpGovernor governor_;
  OpDoneListener op_done_;
  int64_t pending_tiles_ = 0;
  sc_core::sc_event all_tiles_done_;
  std::vector<ActivityTrack> activity_;  // sized once: modules hold pointers into it
  int64_t current_op_ = -1;              // index of the op running (labels HBM activity)
  sc_core::sc_event program_ready_;
  bool started_ = false;  // control_thread has run (later programs are announced by an event)
};

}  // namespace scoville::models
