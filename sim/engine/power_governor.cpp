#include "sim/engine/power_governor.hpp"

#include <algorithm>

#include "models/power/power_accounting.hpp"
#include "sim/stats/op_accounting.hpp"

namespace scoville::engine {

PowerGovernor::PowerGovernor(const models::ChipParams& chip,
                             const std::vector<models::WorkDescriptor>& program,
                             std::vector<std::string> op_phases)
    : chip_(chip),
      program_(program),
      op_phases_(std::move(op_phases)),
      controller_(chip.power.management, chip.power.static_power) {
  states_.reserve(program_.size());
}

bool PowerGovernor::gated(const std::string& phase) const {
  const models::GatingParams& g = chip_.power.management.gating;
  return g.enabled && std::find(g.phases.begin(), g.phases.end(), phase) != g.phases.end();
}

models::EnergyBreakdown PowerGovernor::stall_part(const stats::OpResult& row,
                                                  const OpPowerState& state) const {
  models::EnergyBreakdown e;
  if (row.duration.si() <= 0) return e;
  const Energy static_energy =
      models::at_operating_point(row.energy, curve(), state.frequency).static_energy;
  e.static_energy = static_energy * (state.stall / row.duration);
  e.matrix = state.wake_energy;
  return e;
}

models::EnergyBreakdown PowerGovernor::adjust(const stats::OpResult& row,
                                              const OpPowerState& state) const {
  models::EnergyBreakdown e = models::at_operating_point(row.energy, curve(), state.frequency);
  const models::EnergyBreakdown stall = stall_part(row, state);
  Energy running_static = e.static_energy - stall.static_energy;
  if (state.gated) {
    // Gated units leak only while they compute; the stall is paid at full static power.
    const Duration running = row.duration - state.stall;
    const double busy = running.si() > 0 ? row.compute_time / running : 1.0;
    running_static -= models::gating_saving(running_static, chip_.power.management.gating, busy);
  }
  e.static_energy = running_static + stall.static_energy;
  e.matrix += stall.matrix;
  return e;
}

models::OpControl PowerGovernor::before_op(size_t index,
                                           const std::vector<models::OpRecord>& done) {
  if (index > 0 && index - 1 < done.size() && index - 1 < states_.size()) {
    const models::OpRecord& record = done[index - 1];
    const stats::OpResult row =
        stats::account_op(record, program_[index - 1], chip_, 0, -1, "", Duration());
    const models::EnergyBreakdown e = adjust(row, states_[index - 1]);
    const Duration elapsed = record.elapsed();
    if (elapsed.si() > 0) {
      controller_.observe(elapsed, e.total() / elapsed, e.static_energy / elapsed);
    }
  }
  OpPowerState state;
  state.frequency = controller_.frequency();
  state.throttled = controller_.throttled();
  const std::string& phase = op_phases_[index];
  state.gated = gated(phase);
  if (index > 0 && gated(op_phases_[index - 1]) != state.gated) {
    state.stall = chip_.power.management.gating.wake_latency;
    state.wake_energy = chip_.power.management.gating.wake_energy;
  }
  states_.push_back(state);
  models::OpControl control;
  // Exactly 1.0 at the nominal point, so an unthrottled run times bit-identically.
  control.clock_scale = state.frequency / curve().nominal().frequency;
  control.stall = state.stall;
  return control;
}

}  // namespace scoville::engine
