#include "models/network/network_module.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace scoville::models {

namespace {

std::vector<Bandwidth> capacities(const Topology& t) {
  std::vector<Bandwidth> out;
  for (const Link& l : t.links()) out.push_back(l.bandwidth);
  return out;
}

// Rounded up to the kernel's resolution, so that waking never lands before the event.
sc_core::sc_time delay_until(double t) {
  const double now = sc_core::sc_time_stamp().to_seconds();
  const double resolution = sc_core::sc_get_time_resolution().to_seconds();
  return sc_core::sc_time(std::ceil(std::max(0.0, t - now) / resolution) * resolution,
                          sc_core::SC_SEC);
}

}  // namespace

NetworkModule::NetworkModule(const sc_core::sc_module_name& name, const Topology& topology)
    : sc_core::sc_module(name),
      topology_(&topology),
      router_(topology),
      model_(capacities(topology)) {
  SC_HAS_PROCESS(NetworkModule);
  SC_THREAD(engine_thread);
}

void NetworkModule::transfer(const std::vector<Transfer>& transfers) {
  if (transfers.empty()) return;
  Batch batch;
  batch.pending = static_cast<int64_t>(transfers.size());
  const double now = sc_core::sc_time_stamp().to_seconds();
  // Bring the model to the present before the new flows change the sharing.
  catch_up(now);
  for (const Transfer& t : transfers) {
    const Route r = router_.route(t.src, t.dst);
    for (const auto& [link, fraction] : r.links)
      energy_ += topology_->link(link).energy * t.bytes * fraction;
    model_.add_flow(FlowDemand{r.links, t.bytes, r.latency});
    batch_of_flow_.push_back(&batch);
    bytes_of_flow_.push_back(t.bytes);
  }
  changed_.notify(sc_core::SC_ZERO_TIME);
  sc_core::wait(batch.done);
}

void NetworkModule::run_schedule(const Schedule& schedule) {
  for (const Step& step : schedule) {
    std::vector<Transfer> transfers = step.transfers;
    for (int32_t a : step.all_pairs_members) {
      for (int32_t b : step.all_pairs_members) {
        if (a != b) transfers.push_back({a, b, step.all_pairs_bytes});
      }
    }
    for (int64_t k = 0; k < step.repeat; ++k) transfer(transfers);
  }
}

void NetworkModule::catch_up(double now) {
  while (!model_.idle() && model_.next_completion().si() <= now) {
    for (int32_t id : model_.advance(model_.next_completion())) {
      deliveries_.push({model_.delivered_at(id).si(), id});
    }
  }
  if (model_.now().si() < now) model_.advance(Duration(now));
}

void NetworkModule::engine_thread() {
  for (;;) {
    const double next_tx =
        model_.idle() ? std::numeric_limits<double>::infinity() : model_.next_completion().si();
    const double next_delivery =
        deliveries_.empty() ? std::numeric_limits<double>::infinity() : deliveries_.top().at;
    const double next = std::min(next_tx, next_delivery);
    if (std::isinf(next)) {
      sc_core::wait(changed_);
    } else {
      sc_core::wait(delay_until(next), changed_);
    }
    const double now = sc_core::sc_time_stamp().to_seconds();
    catch_up(now);
    while (!deliveries_.empty() && deliveries_.top().at <= now) {
      const int32_t id = deliveries_.top().flow;
      deliveries_.pop();
      ++delivered_;
      bytes_ += bytes_of_flow_[static_cast<size_t>(id)];
      Batch* batch = batch_of_flow_[static_cast<size_t>(id)];
      if (--batch->pending == 0) batch->done.notify(sc_core::SC_ZERO_TIME);
    }
  }
}

}  // namespace scoville::models
