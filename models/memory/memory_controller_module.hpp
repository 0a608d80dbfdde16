// A memory made of interleaved channels (HBM stacks x channels, or shared SRAM banks). Tiles send
// whole transfers; the controller splits each by address over the channels it touches, issues the
// pieces (each contiguous in its channel's local address space) at the same time and completes
// when the slowest piece does. The controller serves the pieces on its channels directly (see
// b_transport); the channels' TLM sockets stay for any other initiator.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <systemc>
#include <tlm>

#include "models/memory/address_interleaver.hpp"
#include "models/memory/memory_channel_module.hpp"

namespace scoville::models {

class MemoryControllerModule : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<MemoryControllerModule> target;

  using ChannelFactory = std::function<std::unique_ptr<ChannelTiming>(int64_t channel)>;

  MemoryControllerModule(const sc_core::sc_module_name& name, int64_t channels,
                         const ChannelFactory& make_channel, Bytes granule);

  Bytes bytes_read() const;
  Bytes bytes_written() const;
  int64_t channel_count() const { return static_cast<int64_t>(channels_.size()); }
  const MemoryChannelModule& channel(int64_t i) const { return *channels_[static_cast<size_t>(i)]; }
  void set_channel_activity(int64_t i, ActivityTrack* track, const int64_t* op) {
    channels_[static_cast<size_t>(i)]->set_activity(track, op);
    recording_ = recording_ || track != nullptr;
  }
  // Restarts every channel at `origin` (now or later): from there on the channels see times
  // counted from `origin`, converted in SystemC's integer time, so a program started this way
  // meets the same channel states and the same refresh phases, bit for bit, whatever ran before.
  void restart_at(const sc_core::sc_time& origin);

 private:
  void b_transport(int initiator, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);

  tlm_utils::multi_passthrough_initiator_socket<MemoryControllerModule> to_channels_;
  std::vector<std::unique_ptr<MemoryChannelModule>> channels_;
  // Each channel's timing model and the bytes this controller served on it, side by side: a
  // transfer touches up to every channel, and going through each channel module (a large
  // object) cost a cache miss per piece. The modules' own counters hold what came through their
  // sockets or while recording activity; the totals add both (one of them is zero in practice).
  struct Lane {
    ChannelTiming* model = nullptr;
    double read = 0;
    double written = 0;
  };
  std::vector<Lane> lanes_;
  AddressInterleaver interleaver_;
  std::vector<AddressInterleaver::Piece> pieces_;    // per-call scratch: the channels touched
  std::vector<int32_t> slots_;                       // per-call scratch for split_pieces
  bool uniform_latency_ = true;                      // every channel has the same access latency
  bool recording_ = false;                           // some channel records its activity
  sc_core::sc_time origin_ = sc_core::SC_ZERO_TIME;  // the channels' time 0 (restart_at)
};

}  // namespace scoville::models
