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

models::EnergyBreakdown PowerGovernor::stall_energy(const OpPowerState& state) const {
  models::EnergyBreakdown e;
  e.static_energy =
      chip_.power.static_power * curve().static_power_scale(state.frequency) * state.stall;
  e.matrix = state.wake_energy;
  return e;
}

models::EnergyBreakdown PowerGovernor::adjust(const stats::OpResult& row,
                                              const OpPowerState& state) const {
  models::EnergyBreakdown e = models::at_operating_point(row.energy, curve(), state.frequency);
  if (state.gated) {
    // Gated units leak only while they compute.
    const double busy = row.duration.si() > 0 ? row.compute_time / row.duration : 1.0;
    e.static_energy -= models::gating_saving(e.static_energy, chip_.power.management.gating, busy);
  }
  return e;
}

std::string PowerGovernor::key(size_t index) const {
  return op_phases_[index] + "/" + program_[index].label;
}

models::OpControl PowerGovernor::before_op(size_t index,
                                           const std::vector<models::OpRecord>& done) {
  const bool observe_previous = index > 0 && index != fresh_from_;
  if (observe_previous && index - 1 < done.size() && index - 1 < states_.size()) {
    const models::OpRecord& record = done[index - 1];
    const stats::OpResult row =
        stats::account_op(record, program_[index - 1], chip_, 0, -1, "", Duration());
    const models::EnergyBreakdown e = adjust(row, states_[index - 1]);
    const Duration elapsed = record.elapsed();
    if (elapsed.si() > 0) {
      controller_.observe(elapsed, e.total() / elapsed, e.static_energy / elapsed);
      forecast_[key(index - 1)] = controller_.last_dynamic_at_nominal();
    }
    const auto seen = forecast_.find(key(index));
    if (seen != forecast_.end()) controller_.forecast(seen->second);
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
  return control;
}

void PowerGovernor::begin_iteration(size_t first_op, const std::vector<models::OpRecord>& nominal) {
  Energy total;
  Energy static_energy;
  Duration time;
  for (size_t i = 0; i < nominal.size() && first_op + i < program_.size(); ++i) {
    const stats::OpResult row =
        stats::account_op(nominal[i], program_[first_op + i], chip_, 0, -1, "", Duration());
    OpPowerState at_nominal;
    at_nominal.frequency = curve().nominal().frequency;
    at_nominal.gated = gated(op_phases_[first_op + i]);
    const models::EnergyBreakdown e = adjust(row, at_nominal);
    total += e.total();
    static_energy += e.static_energy;
    time += nominal[i].elapsed();
  }
  controller_ = models::CapController(chip_.power.management, chip_.power.static_power);
  fresh_from_ = first_op;
  if (time.si() <= 0) return;
  // The first observation sets the average; a span this short adds no debt worth the name
  // (power x 1 ns), so the controller starts regulating exactly when the iteration's own
  // average is over the cap, at the clock that brings it to the cap.
  controller_.observe(Duration(1e-9), total / time, static_energy / time);
}

}  // namespace scoville::engine
