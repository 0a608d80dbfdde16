#include "models/network/flow_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace scoville::models {

namespace {
// Flows whose finishing times agree to this relative tolerance finish in one event: symmetric
// flows differ only by rounding, and one event per rounding difference would be wasted work.
constexpr double kSameTime = 1e-12;
}  // namespace

FlowModel::FlowModel(std::vector<Bandwidth> capacities) {
  capacity_.reserve(capacities.size());
  for (Bandwidth b : capacities) capacity_.push_back(b.si());
}

int32_t FlowModel::add_flow(FlowDemand demand) {
  for (const auto& [resource, load] : demand.usage) {
    if (resource < 0 || static_cast<size_t>(resource) >= capacity_.size() || load < 0) {
      throw std::logic_error("FlowModel::add_flow: bad resource usage");
    }
  }
  Flow f;
  f.remaining = demand.bytes.si();
  f.demand = std::move(demand);
  const auto id = static_cast<int32_t>(flows_.size());
  flows_.push_back(std::move(f));
  active_.push_back(id);
  rates_valid_ = false;
  return id;
}

// Progressive filling: all unfrozen flows grow at one common rate until some resource is full;
// the flows crossing it freeze at that rate; repeat. A flow with no usage (or zero bytes)
// completes at once.
void FlowModel::assign_rates() {
  rates_valid_ = true;
  ++rate_updates_;
  const size_t R = capacity_.size();
  std::vector<double> left = capacity_;
  std::vector<double> unfrozen_load(R, 0.0);
  std::vector<std::vector<int32_t>> users(R);
  std::vector<char> frozen(flows_.size(), 0);
  size_t unfrozen = 0;
  for (int32_t id : active_) {
    Flow& f = flows_[static_cast<size_t>(id)];
    f.rate = 0;
    bool uses_any = false;
    for (const auto& [j, load] : f.demand.usage) {
      if (load <= 0) continue;
      unfrozen_load[static_cast<size_t>(j)] += load;
      users[static_cast<size_t>(j)].push_back(id);
      uses_any = true;
    }
    if (!uses_any) {
      f.rate = std::numeric_limits<double>::infinity();
      frozen[static_cast<size_t>(id)] = 1;
    } else {
      ++unfrozen;
    }
  }
  double level = 0;
  while (unfrozen > 0) {
    double step = std::numeric_limits<double>::infinity();
    size_t tightest = R;
    for (size_t j = 0; j < R; ++j) {
      if (unfrozen_load[j] <= 0 || users[j].empty()) continue;
      const double s = std::max(0.0, left[j]) / unfrozen_load[j];
      if (s < step) {
        step = s;
        tightest = j;
      }
    }
    if (tightest == R) throw std::logic_error("FlowModel: unfrozen flows without a resource");
    level += step;
    // The tightest resource is full by construction; others within rounding fill with it.
    std::vector<size_t> full{tightest};
    for (size_t j = 0; j < R; ++j) {
      if (unfrozen_load[j] <= 0) continue;
      left[j] -= step * unfrozen_load[j];
      if (j != tightest && left[j] <= kSameTime * capacity_[j]) full.push_back(j);
    }
    for (size_t j : full) {
      for (int32_t id : users[j]) {
        if (frozen[static_cast<size_t>(id)]) continue;
        frozen[static_cast<size_t>(id)] = 1;
        --unfrozen;
        Flow& f = flows_[static_cast<size_t>(id)];
        f.rate = level;
        for (const auto& [k, load] : f.demand.usage) unfrozen_load[static_cast<size_t>(k)] -= load;
      }
      unfrozen_load[j] = 0;
    }
  }
}

Duration FlowModel::next_completion() {
  if (!rates_valid_) assign_rates();
  double next = std::numeric_limits<double>::infinity();
  for (int32_t id : active_) {
    const Flow& f = flows_[static_cast<size_t>(id)];
    next = std::min(next, f.remaining <= 0 ? now_ : now_ + f.remaining / f.rate);
  }
  return Duration(next);
}

std::vector<int32_t> FlowModel::advance(Duration t) {
  if (!rates_valid_) assign_rates();
  const double dt = t.si() - now_;
  if (dt < 0) throw std::logic_error("FlowModel::advance: time goes backwards");
  now_ = t.si();
  std::vector<int32_t> finished;
  std::vector<int32_t> still;
  for (int32_t id : active_) {
    Flow& f = flows_[static_cast<size_t>(id)];
    const double sent = f.rate * dt;
    if (f.remaining <= 0 || std::isinf(f.rate) || sent >= f.remaining * (1 - kSameTime) ||
        f.remaining - sent <= kSameTime * f.rate * now_) {
      f.remaining = 0;
      f.done_at = now_;
      finished.push_back(id);
    } else {
      f.remaining -= sent;
      still.push_back(id);
    }
  }
  active_ = std::move(still);
  if (!finished.empty()) rates_valid_ = false;
  return finished;
}

Duration FlowModel::delivered_at(int32_t flow) const {
  const Flow& f = flows_[static_cast<size_t>(flow)];
  return Duration(f.done_at) + f.demand.latency;
}

Duration FlowModel::run_to_completion() {
  double last = now_;
  while (!active_.empty()) {
    for (int32_t id : advance(next_completion())) last = std::max(last, delivered_at(id).si());
  }
  for (const Flow& f : flows_) last = std::max(last, f.done_at + f.demand.latency.si());
  return Duration(last);
}

}  // namespace scoville::models
