// A compute tile: matrix engine, vector unit and a double-buffered local SRAM. It executes the
// blocks it is given: block i+2 starts loading when block i finishes computing, so loads overlap
// compute and at most two blocks are in flight. Reads and writes go over TLM to the HBM and
// shared-SRAM controllers, whose channels model the contention between tiles.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "models/activity/activity_track.hpp"
#include "models/chip/chip_params.hpp"
#include "models/compute/work_block.hpp"
#include "models/compute/work_descriptor.hpp"
#include "models/noc/mesh_noc_model.hpp"
#include "sim/base/rng.hpp"

namespace scoville::models {

class TileModule : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<TileModule> hbm_socket;
  tlm_utils::simple_initiator_socket<TileModule> shared_socket;

  TileModule(const sc_core::sc_module_name& name, const TileParams& params, Duration noc_latency,
             bool prefetch_next_op, std::function<void()> on_done);

  // Where a tile's share of an op starts in HBM and shared SRAM (for channel interleaving).
  struct Assignment {
    const std::vector<WorkBlock>* blocks = nullptr;
    uint64_t hbm_address = 0;
    uint64_t shared_address = 0;
    HbmPattern hbm_pattern;  // layout of the HBM reads (sequential unless a benchmark asks)
    int64_t op = -1;         // the op's index in the chip's program (labels recorded activity)
  };

  // Hands the tile its blocks for an op and starts it at the current time. With weight prefetch
  // enabled, `next` is this tile's share of the following op: once the tile has computed its
  // last block it streams the HBM part of the next op's first two blocks (weights do not depend
  // on the current op's results), so the next op starts with its buffers already filling.
  void start(Assignment current, Assignment next);

  // Routes this tile's HBM traffic over an on-chip mesh (shared by the chip's tiles) as tile
  // `index`; without it, HBM traffic sees only the fixed NoC latency.
  void attach_mesh(MeshNocModel* mesh, int64_t index) {
    mesh_ = mesh;
    mesh_index_ = index;
  }
  // Runs the engines and the local buffer at `scale` times their configured clocks from the next
  // block on (DVFS; 1 = nominal). The chip sets it between ops.
  // Forgets the byte fractions carried between transfers (see transfer): a program starts with
  // none, whatever the previous one left.
  void restart() {
    hbm_carry_bytes_ = 0;
    shared_carry_bytes_ = 0;
  }
  void set_clock_scale(double scale) { clock_scale_ = scale; }

  // Time the tile spent computing (matrix or vector busy) since construction.
  Duration busy_time() const { return busy_time_; }

  // Records each block's compute span on `track` (null: nothing recorded, the default).
  void set_activity(ActivityTrack* track) { activity_ = track; }

 private:
  void run_thread();
  void execute();
  sc_core::sc_time load(const WorkBlock& block, bool hbm_part, bool shared_part);
  void prefetch(const Assignment& next);
  sc_core::sc_time store(const WorkBlock& block);
  // Sends one transfer and returns the absolute time it completes.
  sc_core::sc_time transfer(tlm_utils::simple_initiator_socket<TileModule>& socket,
                            tlm::tlm_command command, uint64_t& address, Bytes bytes);
  // HBM reads of a strided or random pattern: one request of request_bytes at a time.
  sc_core::sc_time scattered_read(uint64_t bytes);
  // When `bytes` of HBM traffic issued now, which the memory side completes at `memory_done`,
  // have crossed the mesh (memory_done itself on a crossbar NoC).
  sc_core::sc_time through_mesh(bool to_tile, uint64_t bytes, sc_core::sc_time memory_done);

  TileParams params_;
  sc_core::sc_time noc_latency_;
  std::function<void()> on_done_;
  sc_core::sc_event start_event_;
  bool prefetch_next_op_;
  Assignment current_;
  Assignment next_;
  uint64_t hbm_address_ = 0;
  uint64_t shared_address_ = 0;
  // HBM loads already issued for the current op's first blocks (by the previous op's prefetch).
  const std::vector<WorkBlock>* prefetched_for_ = nullptr;
  std::vector<sc_core::sc_time> prefetched_ready_;
  uint64_t prefetched_hbm_bytes_ = 0;
  Duration busy_time_;
  double clock_scale_ = 1.0;
  unsigned char dummy_data_ = 0;  // TLM payloads need a data pointer; this model moves no data
  // One payload reused for every request (constructing one allocates its extension array).
  tlm::tlm_generic_payload payload_;
  double hbm_carry_bytes_ = 0;       // fraction of a byte not yet sent to HBM
  double shared_carry_bytes_ = 0;    // fraction of a byte not yet sent to shared SRAM
  RngStream rng_;                    // random-pattern addresses (seeded by the tile's name)
  uint64_t scattered_requests_ = 0;  // strided requests issued in the current op
  MeshNocModel* mesh_ = nullptr;     // not owned; null on a crossbar NoC
  int64_t mesh_index_ = 0;
  ActivityTrack* activity_ = nullptr;  // not owned; null unless a timeline was asked for
};

}  // namespace scoville::models
