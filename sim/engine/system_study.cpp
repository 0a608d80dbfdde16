#include "sim/engine/system_study.hpp"

#include <algorithm>

#include "sim/engine/decode_sampling.hpp"

namespace scoville::engine {

void accumulate(SystemIterationResult& a, const SystemIterationResult& b, double w) {
  a.time += b.time * w;
  a.hardware_time += b.hardware_time * w;
  a.software_time += b.software_time * w;
  a.compute_time += b.compute_time * w;
  a.hbm_time += b.hbm_time * w;
  a.local_network_time += b.local_network_time * w;
  a.scale_out_time += b.scale_out_time * w;
  a.kv_transfer_time += b.kv_transfer_time * w;
  a.compute_energy += b.compute_energy * w;
  a.hbm_energy += b.hbm_energy * w;
  a.local_network_energy += b.local_network_energy * w;
  a.scale_out_energy += b.scale_out_energy * w;
  a.kv_transfer_energy += b.kv_transfer_energy * w;
  a.static_energy += b.static_energy * w;
  a.energy += b.energy * w;
  a.flops += b.flops * w;
  a.hbm_bytes += b.hbm_bytes * w;
  a.network_bytes += b.network_bytes * w;
  a.kv_transfer_bytes += b.kv_transfer_bytes * w;
  a.chips = b.chips;
  a.roles = std::max(a.roles, b.roles);
  a.simulated_chips = std::max(a.simulated_chips, b.simulated_chips);
  a.ep_imbalance = std::max(a.ep_imbalance, b.ep_imbalance);
  a.ep_imbalance_max = std::max(a.ep_imbalance_max, b.ep_imbalance_max);
}

SystemStudy::SystemStudy(SystemSetup setup, SystemStudyConfig config)
    : engine_(std::make_unique<SystemEngine>(std::move(setup))), config_(config) {}

SystemStudyResult SystemStudy::run(std::vector<SystemTimelineIteration>* timeline) {
  SystemStudyResult out;
  auto simulate_one = [&](const workloads::IterationShape& shape, double weight) {
    if (timeline == nullptr) return engine_->run(shape);
    SystemTimelineIteration it;
    it.phase = shape.phase == workloads::Phase::kPrefill ? "prefill" : "decode";
    it.context = shape.context;
    it.weight = weight;
    engine_->record_timeline(&it.spans);
    it.result = engine_->run(shape);
    engine_->record_timeline(nullptr);
    timeline->push_back(std::move(it));
    return timeline->back().result;
  };
  auto simulate = [&](const workloads::IterationShape& shape, double weight) {
    const SystemIterationResult result = simulate_one(shape, weight);
    if (on_iteration_) {
      on_iteration_(shape.phase == workloads::Phase::kPrefill
                        ? std::string("prefill")
                        : "decode at context " + std::to_string(shape.context));
    }
    return result;
  };
  SystemPhaseResult prefill{"prefill", config_.batch * config_.isl, 1, {}};
  accumulate(prefill.total,
             simulate({workloads::Phase::kPrefill, config_.batch, config_.isl, config_.isl}, 1.0),
             1.0);
  ++out.engine_iterations;
  SystemPhaseResult decode{"decode", config_.batch * config_.osl, config_.osl, {}};
  for (const DecodeSample& s : decode_samples(config_.isl, config_.osl)) {
    accumulate(decode.total,
               simulate({workloads::Phase::kDecode, config_.batch, 1, s.context}, s.weight),
               s.weight);
    ++out.engine_iterations;
  }
  out.phases = {prefill, decode};
  return out;
}

int64_t SystemStudy::iterations() const {
  return 1 + static_cast<int64_t>(decode_samples(config_.isl, config_.osl).size());
}

}  // namespace scoville::engine
