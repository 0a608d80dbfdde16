// The network in SystemC time: a thin shell around FlowModel. Callers (SC_THREADs of chips or
// of a collective driver) hand it transfers; one engine thread wakes at each flow arrival and
// transmission end, re-shares bandwidth through the pure model, and notifies each batch when
// its last transfer is delivered (transmission end + path latency).
#pragma once

#include <cstdint>
#include <memory>
#include <queue>
#include <vector>

#include <systemc>

#include "models/network/collective.hpp"
#include "models/network/flow_model.hpp"
#include "models/network/router.hpp"
#include "models/network/topology.hpp"

namespace scoville::models {

class NetworkModule : public sc_core::sc_module {
 public:
  NetworkModule(const sc_core::sc_module_name& name, const Topology& topology);

  // From an SC_THREAD: starts the transfers now and returns once all are delivered.
  void transfer(const std::vector<Transfer>& transfers);
  // From an SC_THREAD: runs the schedule's steps in order (every transfer simulated).
  void run_schedule(const Schedule& schedule);

  int64_t flows_delivered() const { return delivered_; }
  Energy energy() const { return energy_; }
  Bytes bytes_delivered() const { return bytes_; }

 private:
  struct Batch {
    int64_t pending = 0;
    sc_core::sc_event done;
  };
  struct Delivery {
    double at;
    int32_t flow;
    bool operator>(const Delivery& o) const { return at > o.at || (at == o.at && flow > o.flow); }
  };

  void engine_thread();
  // Moves the flow model to `now` (seconds), queueing the deliveries of flows that end on the way.
  void catch_up(double now);

  const Topology* topology_;
  Router router_;
  FlowModel model_;
  std::vector<Batch*> batch_of_flow_;
  std::vector<Bytes> bytes_of_flow_;
  std::priority_queue<Delivery, std::vector<Delivery>, std::greater<Delivery>> deliveries_;
  sc_core::sc_event changed_;
  int64_t delivered_ = 0;
  Energy energy_;
  Bytes bytes_;
};

}  // namespace scoville::models
