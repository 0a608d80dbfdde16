#include "sim/serving/scheduling_policy.hpp"

#include "sim/base/registry.hpp"

namespace scoville::serving {

namespace {

class FcfsBatching : public BatchingPolicy {
 public:
  std::string name() const override { return "fcfs"; }
  bool serves(bool /*prefilling*/, bool /*pool_has_prefill_work*/) const override { return true; }
};

class PrefillFirstBatching : public BatchingPolicy {
 public:
  std::string name() const override { return "prefill-first"; }
  bool serves(bool prefilling, bool pool_has_prefill_work) const override {
    return prefilling || !pool_has_prefill_work;
  }
};

class QueueAtDecode : public HandoffPolicy {
 public:
  std::string name() const override { return "queue-at-decode"; }
  bool reserves_decode_slot() const override { return false; }
};

class ReserveDecodeSlot : public HandoffPolicy {
 public:
  std::string name() const override { return "reserve-decode-slot"; }
  bool reserves_decode_slot() const override { return true; }
};

using BatchingRegistry = Registry<std::shared_ptr<const BatchingPolicy>>;
using HandoffRegistry = Registry<std::shared_ptr<const HandoffPolicy>>;

const BatchingRegistry& batching_registry() {
  static const BatchingRegistry registry = [] {
    BatchingRegistry r("batching policy");
    r.add("fcfs", [] { return std::make_shared<const FcfsBatching>(); });
    r.add("prefill-first", [] { return std::make_shared<const PrefillFirstBatching>(); });
    return r;
  }();
  return registry;
}

const HandoffRegistry& handoff_registry() {
  static const HandoffRegistry registry = [] {
    HandoffRegistry r("hand-off policy");
    r.add("queue-at-decode", [] { return std::make_shared<const QueueAtDecode>(); });
    r.add("reserve-decode-slot", [] { return std::make_shared<const ReserveDecodeSlot>(); });
    return r;
  }();
  return registry;
}

}  // namespace

std::vector<std::string> batching_policy_names() { return batching_registry().names(); }
bool is_batching_policy(const std::string& name) { return batching_registry().contains(name); }
std::shared_ptr<const BatchingPolicy> make_batching_policy(const std::string& name) {
  return batching_registry().create(name);
}

std::vector<std::string> handoff_policy_names() { return handoff_registry().names(); }
bool is_handoff_policy(const std::string& name) { return handoff_registry().contains(name); }
std::shared_ptr<const HandoffPolicy> make_handoff_policy(const std::string& name) {
  return handoff_registry().create(name);
}

}  // namespace scoville::serving
