#include "models/memory/memory_channel_module.hpp"

namespace scoville::models {

sc_core::sc_time to_sc_time(Duration d) { return sc_core::sc_time(d.si(), sc_core::SC_SEC); }
Duration from_sc_time(const sc_core::sc_time& t) { return Duration(t.to_seconds()); }

MemoryChannelModule::MemoryChannelModule(const sc_core::sc_module_name& name,
                                         const ChannelModel& model)
    : sc_core::sc_module(name),
      socket("socket"),
      model_(model),
      latency_(to_sc_time(model.access_latency())) {
  socket.register_b_transport(this, &MemoryChannelModule::b_transport);
}

void MemoryChannelModule::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const Bytes bytes(static_cast<double>(payload.get_data_length()));
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const sc_core::sc_time arrival = now + delay;
  const sc_core::sc_time start = arrival > busy_until_ ? arrival : busy_until_;
  const sc_core::sc_time occupancy = to_sc_time(model_.occupancy(bytes));
  busy_until_ = start + occupancy;
  busy_time_ += from_sc_time(occupancy);
  if (payload.is_write()) {
    bytes_written_ += bytes;
  } else {
    bytes_read_ += bytes;
  }
  delay = busy_until_ + latency_ - now;
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace scoville::models
