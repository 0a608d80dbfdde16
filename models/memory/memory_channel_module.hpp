// One memory channel (an HBM channel, or a bank of shared SRAM) as a TLM-2.0 loosely-timed target:
// the thin SystemC shell around a ChannelTiming model. A request's data is done when the model
// says (it queues behind earlier requests inside the model), and reaches the requester one access
// latency later. Contention is real: requests from every tile meet in the same model state.
#pragma once

#include <memory>

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "models/activity/activity_track.hpp"
#include "models/memory/channel_timing.hpp"
#include "sim/base/units.hpp"

namespace scoville::models {

class MemoryChannelModule : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<MemoryChannelModule> socket;

  MemoryChannelModule(const sc_core::sc_module_name& name, std::unique_ptr<ChannelTiming> model);

  // What b_transport does for a request arriving at `arrival`, without the TLM round trip and
  // the SystemC time conversions: returns when its data is done (the requester has it
  // access_latency() later). The controller that owns the channel calls this for each piece of
  // a transfer (millions per op), so that it converts times once per transfer, not per piece.
  Duration serve(Duration arrival, uint64_t address, uint64_t length, bool write);
  const sc_core::sc_time& latency() const { return latency_; }
  // The model back to its time-0 state, with times counted from `origin` (see the controller's
  // restart_at); serve() then takes and returns times since `origin`.
  void restart_at(const sc_core::sc_time& origin);

  Bytes bytes_read() const { return bytes_read_; }
  Bytes bytes_written() const { return bytes_written_; }
  const ChannelTiming& model() const { return *model_; }
  ChannelTiming& model() { return *model_; }
  // Records the channel's busy intervals on `track`, labelled with `*op` at the time of each
  // request (null: nothing recorded, the default). A request counts as busy from when it arrives
  // or the previous one is done, whichever is later, until its data is done (the model serves
  // requests in arrival order).
  void set_activity(ActivityTrack* track, const int64_t* op) {
    activity_ = track;
    activity_op_ = op;
  }

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);

  std::unique_ptr<ChannelTiming> model_;
  sc_core::sc_time latency_;
  Bytes bytes_read_;
  Bytes bytes_written_;
  ActivityTrack* activity_ = nullptr;
  const int64_t* activity_op_ = nullptr;
  Duration last_done_;  // only kept while recording; since origin_
  sc_core::sc_time origin_ = sc_core::SC_ZERO_TIME;
};

// Converts between our Duration and SystemC time (resolution 1 ps by default).
sc_core::sc_time to_sc_time(Duration d);
Duration from_sc_time(const sc_core::sc_time& t);

}  // namespace scoville::models
