// One memory channel (an HBM channel, or a bank of shared SRAM) as a TLM-2.0 loosely-timed target:
// the thin SystemC shell around ChannelModel. A request starts when it arrives and the channel is
// free, occupies the channel for ChannelModel::occupancy, and its data is complete one access
// latency later. Contention is real: requests from every tile queue on the same busy-until time.
#pragma once

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "models/memory/channel_model.hpp"
#include "sim/base/units.hpp"

namespace scoville::models {

class MemoryChannelModule : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<MemoryChannelModule> socket;

  MemoryChannelModule(const sc_core::sc_module_name& name, const ChannelModel& model);

  Bytes bytes_read() const { return bytes_read_; }
  Bytes bytes_written() const { return bytes_written_; }
  Duration busy_time() const { return busy_time_; }

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);

  ChannelModel model_;
  sc_core::sc_time latency_;
  sc_core::sc_time busy_until_ = sc_core::SC_ZERO_TIME;
  Bytes bytes_read_;
  Bytes bytes_written_;
  Duration busy_time_;
};

// Converts between our Duration and SystemC time (resolution 1 ps by default).
sc_core::sc_time to_sc_time(Duration d);
Duration from_sc_time(const sc_core::sc_time& t);

}  // namespace scoville::models
