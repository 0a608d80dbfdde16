#include "models/compute/tile_module.hpp"

#include <algorithm>
#include <cmath>

#include "models/memory/memory_channel_module.hpp"

namespace scoville::models {

namespace {
// TLM data lengths are 32-bit; larger transfers go out as consecutive pieces.
constexpr uint64_t kMaxTransferBytes = 1ull << 30;
}  // namespace

TileModule::TileModule(const sc_core::sc_module_name& name, const TileParams& params,
                       Duration noc_latency, bool prefetch_next_op, std::function<void()> on_done)
    : sc_core::sc_module(name),
      hbm_socket("hbm_socket"),
      shared_socket("shared_socket"),
      params_(params),
      noc_latency_(to_sc_time(noc_latency)),
      on_done_(std::move(on_done)),
      prefetch_next_op_(prefetch_next_op),
      rng_(0, std::string(static_cast<const char*>(name))) {
  SC_HAS_PROCESS(TileModule);
  SC_THREAD(run_thread);
}

void TileModule::start(Assignment current, Assignment next) {
  current_ = current;
  next_ = next;
  shared_address_ = current.shared_address;
  hbm_address_ = current.hbm_address;
  scattered_requests_ = 0;
  if (prefetched_for_ == current.blocks) {
    hbm_address_ += prefetched_hbm_bytes_;
  } else {
    prefetched_ready_.clear();
  }
  start_event_.notify(sc_core::SC_ZERO_TIME);
}

void TileModule::prefetch(const Assignment& next) {
  prefetched_for_ = next.blocks;
  prefetched_ready_.clear();
  prefetched_hbm_bytes_ = 0;
  uint64_t address = next.hbm_address;
  for (size_t i = 0; i < std::min<size_t>(2, next.blocks->size()); ++i) {
    const Bytes bytes = (*next.blocks)[i].hbm_read;
    sc_core::sc_time ready = sc_core::sc_time_stamp();
    if (bytes.si() > 0) ready = transfer(hbm_socket, tlm::TLM_READ_COMMAND, address, bytes);
    prefetched_ready_.push_back(ready);
  }
  prefetched_hbm_bytes_ = address - next.hbm_address;
}

void TileModule::run_thread() {
  while (true) {
    sc_core::wait(start_event_);
    execute();
    on_done_();
  }
}

sc_core::sc_time TileModule::transfer(tlm_utils::simple_initiator_socket<TileModule>& socket,
                                      tlm::tlm_command command, uint64_t& address, Bytes bytes) {
  sc_core::sc_time done = sc_core::sc_time_stamp();
  // Blocks carry fractional byte counts (a share divided evenly); transfers are whole bytes, and
  // the fraction carries over to the tile's next transfer on the same port, so that what the
  // memories serve adds up to exactly what the ops planned.
  double& carry = &socket == &hbm_socket ? hbm_carry_bytes_ : shared_carry_bytes_;
  const double wanted = bytes.si() + carry;
  uint64_t remaining = static_cast<uint64_t>(std::floor(wanted));
  carry = wanted - static_cast<double>(remaining);
  tlm::tlm_generic_payload& payload = payload_;
  payload.set_command(command);
  payload.set_data_ptr(&dummy_data_);
  const uint64_t total = remaining;
  while (remaining > 0) {
    const uint64_t piece = std::min(remaining, kMaxTransferBytes);
    payload.set_address(address);
    payload.set_data_length(static_cast<unsigned int>(piece));
    payload.set_streaming_width(static_cast<unsigned int>(piece));
    payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    socket->b_transport(payload, delay);
    done = std::max(done, sc_core::sc_time_stamp() + delay);
    address += piece;
    remaining -= piece;
  }
  if (&socket == &hbm_socket) done = through_mesh(command == tlm::TLM_READ_COMMAND, total, done);
  return done + noc_latency_;
}

sc_core::sc_time TileModule::through_mesh(bool to_tile, uint64_t bytes,
                                          sc_core::sc_time memory_done) {
  if (mesh_ == nullptr || bytes == 0) return memory_done;
  // Channels interleave (hashed) over all stacks, so a transfer's bytes split evenly over the
  // stacks' memory ports; the memory and the mesh stream concurrently and the slower one sets
  // the arrival.
  const Duration now = from_sc_time(sc_core::sc_time_stamp());
  const int64_t ports = mesh_->memory_ports();
  const Bytes share(static_cast<double>(bytes) / static_cast<double>(ports));
  Duration arrival = now;
  for (int64_t p = 0; p < ports; ++p) {
    arrival = std::max(arrival, mesh_->move(p, mesh_index_, to_tile, share, now));
  }
  return std::max(memory_done, to_sc_time(arrival));
}

sc_core::sc_time TileModule::scattered_read(uint64_t bytes) {
  const HbmPattern& p = current_.hbm_pattern;
  sc_core::sc_time done = sc_core::sc_time_stamp();
  tlm::tlm_generic_payload& payload = payload_;
  payload.set_command(tlm::TLM_READ_COMMAND);
  payload.set_data_ptr(&dummy_data_);
  // Strided requests continue from where this tile's range starts, scaled by stride/request so
  // that tiles do not overlap; random ones are request-aligned anywhere in the span.
  const uint64_t base = current_.hbm_address / p.request_bytes * p.stride_bytes;
  for (uint64_t sent = 0; sent < bytes; sent += p.request_bytes) {
    const uint64_t piece = std::min(p.request_bytes, bytes - sent);
    uint64_t address = 0;
    if (p.access == HbmAccess::kStrided) {
      address = base + scattered_requests_++ * p.stride_bytes;
    } else {
      address = rng_.next_u64() % (p.span_bytes / p.request_bytes) * p.request_bytes;
    }
    payload.set_address(address);
    payload.set_data_length(static_cast<unsigned int>(piece));
    payload.set_streaming_width(static_cast<unsigned int>(piece));
    payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    hbm_socket->b_transport(payload, delay);
    done = std::max(done, sc_core::sc_time_stamp() + delay);
  }
  done = through_mesh(true, bytes, done);
  return done + noc_latency_;
}

sc_core::sc_time TileModule::load(const WorkBlock& block, bool hbm_part, bool shared_part) {
  sc_core::sc_time ready = sc_core::sc_time_stamp();
  if (hbm_part && block.hbm_read.si() > 0 &&
      current_.hbm_pattern.access != HbmAccess::kSequential) {
    const double wanted = block.hbm_read.si() + hbm_carry_bytes_;
    const double whole = std::floor(wanted);
    hbm_carry_bytes_ = wanted - whole;
    ready = std::max(ready, scattered_read(static_cast<uint64_t>(whole)));
  } else if (hbm_part && block.hbm_read.si() > 0) {
    ready =
        std::max(ready, transfer(hbm_socket, tlm::TLM_READ_COMMAND, hbm_address_, block.hbm_read));
  }
  if (shared_part && block.shared_read.si() > 0) {
    ready = std::max(
        ready, transfer(shared_socket, tlm::TLM_READ_COMMAND, shared_address_, block.shared_read));
  }
  return ready;
}

sc_core::sc_time TileModule::store(const WorkBlock& block) {
  sc_core::sc_time done = sc_core::sc_time_stamp();
  if (block.hbm_write.si() > 0) {
    done =
        std::max(done, transfer(hbm_socket, tlm::TLM_WRITE_COMMAND, hbm_address_, block.hbm_write));
  }
  if (block.shared_write.si() > 0) {
    done = std::max(
        done, transfer(shared_socket, tlm::TLM_WRITE_COMMAND, shared_address_, block.shared_write));
  }
  return done;
}

void TileModule::execute() {
  const std::vector<WorkBlock>& blocks = *current_.blocks;
  const size_t n = blocks.size();
  // Double buffering: two slots, so blocks 0 and 1 load at once, and block i+2 loads into
  // block i's slot as soon as block i has computed. Blocks whose weights were prefetched only
  // fetch their activations now.
  std::vector<sc_core::sc_time> ready(n);
  for (size_t i = 0; i < std::min<size_t>(2, n); ++i) {
    const bool prefetched = i < prefetched_ready_.size();
    ready[i] = load(blocks[i], !prefetched, true);
    if (prefetched) ready[i] = std::max(ready[i], prefetched_ready_[i]);
  }
  prefetched_ready_.clear();
  prefetched_for_ = nullptr;
  sc_core::sc_time writes_done = sc_core::sc_time_stamp();
  for (size_t i = 0; i < n; ++i) {
    if (ready[i] > sc_core::sc_time_stamp()) sc_core::wait(ready[i] - sc_core::sc_time_stamp());
    const WorkBlock& b = blocks[i];
    // The engines and the local buffer work in parallel; the slower one sets the pace.
    // Under DVFS everything on the tile clock slows together: engines and local buffer (x 1.0
    // is exact in floating point, so an unthrottled chip times exactly as without DVFS).
    const Duration engines =
        cycles_to_duration(b.matrix_cycles, params_.matrix_clock(b.math) * clock_scale_) +
        cycles_to_duration(b.vector_cycles, params_.clock * clock_scale_);
    const Bytes buffer_traffic = b.hbm_read + b.shared_read + b.hbm_write + b.shared_write;
    const Duration buffer = buffer_traffic / (params_.sram_bandwidth * clock_scale_);
    const Duration compute = std::max(engines, buffer);
    const sc_core::sc_time began = sc_core::sc_time_stamp();
    if (compute.si() > 0) sc_core::wait(to_sc_time(compute));
    busy_time_ += compute;
    if (activity_ != nullptr) {
      activity_->add(from_sc_time(began), from_sc_time(sc_core::sc_time_stamp()), current_.op,
                     buffer_traffic.si());
    }
    writes_done = std::max(writes_done, store(b));
    if (i + 2 < n) ready[i + 2] = load(blocks[i + 2], true, true);
  }
  if (prefetch_next_op_ && next_.blocks != nullptr && !next_.blocks->empty()) prefetch(next_);
  if (writes_done > sc_core::sc_time_stamp()) sc_core::wait(writes_done - sc_core::sc_time_stamp());
}

}  // namespace scoville::models
