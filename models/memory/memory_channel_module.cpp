#include "models/memory/memory_channel_module.hpp"

#include <algorithm>

namespace scoville::models {

sc_core::sc_time to_sc_time(Duration d) { return sc_core::sc_time(d.si(), sc_core::SC_SEC); }
Duration from_sc_time(const sc_core::sc_time& t) { return Duration(t.to_seconds()); }

MemoryChannelModule::MemoryChannelModule(const sc_core::sc_module_name& name,
                                         std::unique_ptr<ChannelTiming> model)
    : sc_core::sc_module(name),
      socket("socket"),
      model_(std::move(model)),
      latency_(to_sc_time(model_->access_latency())) {
  socket.register_b_transport(this, &MemoryChannelModule::b_transport);
}

Duration MemoryChannelModule::serve(Duration arrival, uint64_t address, uint64_t length,
                                    bool write) {
  const Bytes bytes(static_cast<double>(length));
  const Duration done = model_->serve(arrival, address, length, write);
  if (activity_ != nullptr) {
    // A request the model finished before the previous one (bank parallelism) adds its bytes
    // but no busy time.
    const Duration begin = std::max(arrival, last_done_);
    const Duration origin = from_sc_time(origin_);  // the activity track counts absolute time
    activity_->add(origin + begin, origin + std::max(begin, done), *activity_op_, bytes.si());
    last_done_ = std::max(last_done_, done);
  }
  if (write) {
    bytes_written_ += bytes;
  } else {
    bytes_read_ += bytes;
  }
  return done;
}

void MemoryChannelModule::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const Duration done = serve(from_sc_time(now + delay - origin_), payload.get_address(),
                              payload.get_data_length(), payload.is_write());
  delay = to_sc_time(done) + origin_ + latency_ - now;
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

void MemoryChannelModule::restart_at(const sc_core::sc_time& origin) {
  origin_ = origin;
  last_done_ = Duration();
  model_->restart();
}

}  // namespace scoville::models
