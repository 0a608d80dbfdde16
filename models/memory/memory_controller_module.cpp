#include "models/memory/memory_controller_module.hpp"

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
  }
}

Bytes MemoryControllerModule::bytes_read() const {
  Bytes sum;
  for (const auto& c : channels_) sum += c->bytes_read();
  return sum;
}

Bytes MemoryControllerModule::bytes_written() const {
  Bytes sum;
  for (const auto& c : channels_) sum += c->bytes_written();
  return sum;
}

void MemoryControllerModule::b_transport(int /*initiator*/, tlm::tlm_generic_payload& payload,
                                         sc_core::sc_time& delay) {
  std::vector<uint64_t>& pieces = pieces_;
  std::vector<uint64_t>& local_starts = local_starts_;
  interleaver_.split_into(payload.get_address(), payload.get_data_length(), pieces, &local_starts);
  sc_core::sc_time slowest = delay;
  tlm::tlm_generic_payload piece;
  piece.set_command(payload.get_command());
  piece.set_data_ptr(payload.get_data_ptr());
  for (size_t channel = 0; channel < pieces.size(); ++channel) {
    if (pieces[channel] == 0) continue;
    piece.set_address(local_starts[channel]);
    piece.set_data_length(static_cast<unsigned int>(pieces[channel]));
    piece.set_streaming_width(static_cast<unsigned int>(pieces[channel]));
    piece.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time piece_delay = delay;
    to_channels_[static_cast<int>(channel)]->b_transport(piece, piece_delay);
    if (piece_delay > slowest) slowest = piece_delay;
  }
  delay = slowest;
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace scoville::models
