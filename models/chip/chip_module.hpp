// A chip: tiles, an HBM controller with its channels, and shared SRAM, joined over TLM. It runs a
// program of ops in order; each op is tiled by the TilingPolicy, all tiles start together, and
// the op ends when the last tile has finished (a kernel boundary). Per-op records hold the
// timing and the op's planned work; the memories count what they actually served.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "models/chip/chip_params.hpp"
#include "models/compute/tile_module.hpp"
#include "models/compute/tiling_policy.hpp"
#include "models/compute/work_descriptor.hpp"
#include "models/memory/memory_controller_module.hpp"

namespace scoville::models {

struct OpRecord {
  Duration start;
  Duration end;
  WorkBlock planned;  // sums over the op's blocks (compute, MACs, bytes)
  double max_tile_compute_cycles = 0;

  Duration elapsed() const { return end - start; }
};

class ChipModule : public sc_core::sc_module {
 public:
  ChipModule(const sc_core::sc_module_name& name, const ChipParams& params);

  // The ops to execute, in order, once the simulation starts. Call before sc_start(), or
  // between sc_start() calls to run another program on the same design (a process elaborates
  // once; the system engine runs every iteration this way). A later program starts at the next
  // multiple of the HBM refresh interval, so that identical programs meet the same refresh
  // phase and take identical time; records are absolute, as always.
  void set_program(std::vector<WorkDescriptor> program);
  const std::vector<OpRecord>& records() const { return records_; }
  const ChipParams& params() const { return params_; }
  bool finished() const { return records_.size() == program_.size(); }
  // Bytes read plus written, as served by the channels since construction (a prefetch counts
  // when issued, so per-op windows would misattribute them; totals are exact).
  Bytes hbm_bytes_served() const;
  Bytes shared_sram_bytes_served() const;

 private:
  void control_thread();
  void run_program();
  void tile_done();

  ChipParams params_;
  TilingPolicy policy_;
  std::unique_ptr<MemoryControllerModule> hbm_;
  std::unique_ptr<MemoryControllerModule> shared_sram_;
  std::vector<std::unique_ptr<TileModule>> tiles_;
  std::vector<WorkDescriptor> program_;
  std::vector<OpRecord> records_;
  int64_t pending_tiles_ = 0;
  sc_core::sc_event all_tiles_done_;
  sc_core::sc_event program_ready_;
  bool started_ = false;  // control_thread has run (later programs are announced by an event)
};

}  // namespace scoville::models
