#include "models/memory/memory_controller_module.hpp"

#include <algorithm>

namespace scoville::models {

MemoryControllerModule::MemoryControllerModule(const sc_core::sc_module_name& name,
                                               int64_t channels, const ChannelFactory& make_channel,
                                               Bytes granule)
    : sc_core::sc_module(name),
      target("target"),
      to_channels_("to_channels"),
      interleaver_(channels, static_cast<uint64_t>(granule.si())) {
  target.register_b_transport(this, &MemoryControllerModule::b_transport);
  for (int64_t i = 0; i < channels; ++i) {
    const std::string channel_name = "channel_" + std::to_string(i);
    channels_.push_back(
        std::make_unique<MemoryChannelModule>(channel_name.c_str(), make_channel(i)));
    to_channels_.bind(channels_.back()->socket);
    uniform_latency_ = uniform_latency_ && channels_.back()->latency() == channels_[0]->latency();
    lanes_.push_back({&channels_.back()->model(), 0, 0});
  }
}

Bytes MemoryControllerModule::bytes_read() const {
  Bytes sum;
  for (size_t c = 0; c < channels_.size(); ++c) {
    sum += channels_[c]->bytes_read() + Bytes(lanes_[c].read);
  }
  return sum;
}

Bytes MemoryControllerModule::bytes_written() const {
  Bytes sum;
  for (size_t c = 0; c < channels_.size(); ++c) {
    sum += channels_[c]->bytes_written() + Bytes(lanes_[c].written);
  }
  return sum;
}

void MemoryControllerModule::b_transport(int /*initiator*/, tlm::tlm_generic_payload& payload,
                                         sc_core::sc_time& delay) {
  interleaver_.split_pieces(payload.get_address(), payload.get_data_length(), pieces_, slots_);
  if (recording_) {
    // Channels of one HBM stack share an activity track, whose sums depend on the order of
    // arrival: serve in channel order, as the per-channel loop always did.
    std::sort(pieces_.begin(), pieces_.end(),
              [](const AddressInterleaver::Piece& a, const AddressInterleaver::Piece& b) {
                return a.channel < b.channel;
              });
  }
  // Each piece is served by its channel directly (the channels are this controller's own): the
  // same as a TLM call per piece, which would give each piece's end as delay + latency - now in
  // SystemC time. The conversion to SystemC time is monotone, so the slowest piece in SystemC
  // time is the slowest in seconds: converting once, for the slowest, gives the same delay.
  // Channels with different latencies (none are built so) take the per-piece conversion.
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const Duration arrival = from_sc_time(now + delay - origin_);
  const bool write = payload.is_write();
  sc_core::sc_time slowest = delay;
  bool any = false;
  Duration latest;
  for (const AddressInterleaver::Piece& piece : pieces_) {
    if (piece.bytes == 0) continue;
    MemoryChannelModule& channel = *channels_[static_cast<size_t>(piece.channel)];
    Duration done;
    if (recording_) {
      done = channel.serve(arrival, piece.local_start, piece.bytes, write);
    } else {
      Lane& lane = lanes_[static_cast<size_t>(piece.channel)];
      done = lane.model->serve(arrival, piece.local_start, piece.bytes, write);
      (write ? lane.written : lane.read) += static_cast<double>(piece.bytes);
    }
    if (uniform_latency_) {
      latest = any ? std::max(latest, done) : done;
      any = true;
    } else {
      const sc_core::sc_time piece_delay = to_sc_time(done) + origin_ + channel.latency() - now;
      if (piece_delay > slowest) slowest = piece_delay;
    }
  }
  if (any) {
    const sc_core::sc_time piece_delay =
        to_sc_time(latest) + origin_ + channels_.front()->latency() - now;
    if (piece_delay > slowest) slowest = piece_delay;
  }
  delay = slowest;
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

void MemoryControllerModule::restart_at(const sc_core::sc_time& origin) {
  origin_ = origin;
  for (auto& channel : channels_) channel->restart_at(origin);
}

}  // namespace scoville::models
