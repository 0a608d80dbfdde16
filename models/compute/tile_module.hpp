// A compute tile: matrix engine, vector unit and a double-buffered local SRAM. It executes the
// blocks it is given: block i+2 starts loading when block i finishes computing, so loads overlap
// compute and at most two blocks are in flight. Reads and writes go over TLM to the HBM and
// shared-SRAM controllers, whose channels model the contention between tiles.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "models/chip/chip_params.hpp"
#include "models/compute/work_block.hpp"

namespace scoville::models {

class TileModule : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<TileModule> hbm_socket;
  tlm_utils::simple_initiator_socket<TileModule> shared_socket;

  TileModule(const sc_core::sc_module_name& name, const TileParams& params, Duration noc_latency,
             std::function<void()> on_done);

  // Hands the tile its blocks for the next op and starts it at the current time. `hbm_address`
  // and `shared_address` are where this tile's streamed data starts (for channel interleaving).
  void start(const std::vector<WorkBlock>* blocks, uint64_t hbm_address, uint64_t shared_address);

  // Time the tile spent computing (matrix or vector busy) since construction.
  Duration busy_time() const { return busy_time_; }

 private:
  void run_thread();
  void execute();
  sc_core::sc_time load(const WorkBlock& block);
  sc_core::sc_time store(const WorkBlock& block);
  // Sends one transfer and returns the absolute time it completes.
  sc_core::sc_time transfer(tlm_utils::simple_initiator_socket<TileModule>& socket,
                            tlm::tlm_command command, uint64_t& address, Bytes bytes);

  TileParams params_;
  sc_core::sc_time noc_latency_;
  std::function<void()> on_done_;
  sc_core::sc_event start_event_;
  const std::vector<WorkBlock>* blocks_ = nullptr;
  uint64_t hbm_address_ = 0;
  uint64_t shared_address_ = 0;
  Duration busy_time_;
};

}  // namespace scoville::models
