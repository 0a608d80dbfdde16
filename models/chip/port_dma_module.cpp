#include "models/chip/port_dma_module.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>

#include "models/memory/memory_channel_module.hpp"

namespace scoville::models {

PortDmaModule::PortDmaModule(const sc_core::sc_module_name& name, const ChipPortParams& ports,
                             Duration noc_latency, MeshNocModel* mesh)
    : sc_core::sc_module(name),
      hbm_socket("hbm_socket"),
      ports_(ports),
      noc_latency_(to_sc_time(noc_latency)),
      mesh_(mesh) {
  for (std::vector<Duration>& free : port_free_) {
    free.assign(static_cast<size_t>(std::max<int64_t>(0, ports.count)), Duration());
  }
  SC_HAS_PROCESS(PortDmaModule);
  SC_THREAD(run_thread);
}

void PortDmaModule::submit(const std::vector<PortTransfer>& transfers) {
  if (transfers.empty()) return;
  if (ports_.count <= 0 || ports_.bandwidth_per_port.si() <= 0) {
    throw std::invalid_argument("PortDmaModule: the chip has no chip-to-chip ports");
  }
  queue_.insert(queue_.end(), transfers.begin(), transfers.end());
  work_.notify(sc_core::SC_ZERO_TIME);
}

sc_core::sc_time PortDmaModule::piece(bool send, uint64_t bytes) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const Duration start = from_sc_time(now);
  // Memory side: one read (send) or write (receive) of the whole piece; channels interleave it.
  tlm::tlm_generic_payload payload;
  payload.set_command(send ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
  payload.set_data_ptr(&dummy_data_);
  payload.set_address(address_);
  payload.set_data_length(static_cast<unsigned int>(bytes));
  payload.set_streaming_width(static_cast<unsigned int>(bytes));
  payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  hbm_socket->b_transport(payload, delay);
  address_ += bytes;
  bytes_moved_ += bytes;
  Duration done = from_sc_time(now + delay);
  // Ports: the piece is striped evenly over all of them.
  const double ports = static_cast<double>(ports_.count);
  const Bytes per_port(static_cast<double>(bytes) / ports);
  for (Duration& free : port_free_[send ? 0 : 1]) {
    free = std::max(free, start) + per_port / ports_.bandwidth_per_port;
    done = std::max(done, free);
  }
  // Mesh: every memory port's share to every I/O port's share.
  if (mesh_ != nullptr && mesh_->io_ports() > 0) {
    const int64_t memory_ports = mesh_->memory_ports();
    const Bytes share(static_cast<double>(bytes) /
                      (static_cast<double>(memory_ports) * static_cast<double>(mesh_->io_ports())));
    for (int64_t m = 0; m < memory_ports; ++m) {
      for (int64_t io = 0; io < mesh_->io_ports(); ++io) {
        done = std::max(done, mesh_->move_io(m, io, send, share, start));
      }
    }
  }
  return to_sc_time(done) + noc_latency_;
}

void PortDmaModule::run_thread() {
  for (;;) {
    while (next_ == queue_.size()) sc_core::wait(work_);
    const PortTransfer t = queue_[next_++];
    const sc_core::sc_time at = to_sc_time(t.start);
    if (at > sc_core::sc_time_stamp()) sc_core::wait(at - sc_core::sc_time_stamp());
    const Duration began = from_sc_time(sc_core::sc_time_stamp());
    // Whole bytes, in pieces; the window bounds how far ahead the queue issues.
    uint64_t remaining = static_cast<uint64_t>(std::llround(std::max(0.0, t.bytes.si())));
    std::deque<sc_core::sc_time> in_flight;
    sc_core::sc_time last = sc_core::sc_time_stamp();
    while (remaining > 0) {
      if (static_cast<int>(in_flight.size()) == kWindow) {
        const sc_core::sc_time oldest = in_flight.front();
        in_flight.pop_front();
        if (oldest > sc_core::sc_time_stamp()) sc_core::wait(oldest - sc_core::sc_time_stamp());
      }
      const uint64_t bytes = std::min(remaining, kPieceBytes);
      const sc_core::sc_time done = piece(t.send, bytes);
      in_flight.push_back(done);
      last = std::max(last, done);
      remaining -= bytes;
    }
    if (last > sc_core::sc_time_stamp()) sc_core::wait(last - sc_core::sc_time_stamp());
    PortTransfer recorded = t;
    recorded.start = began;
    records_.push_back({recorded, from_sc_time(sc_core::sc_time_stamp())});
  }
}

}  // namespace scoville::models
