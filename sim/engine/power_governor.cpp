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

models::EnergyBreakdown PowerGovernor::adjust(const stats::OpResult& row, const OpPowerState& state,
                                              const models::OpRecord& record) const {
  const double low_time_share =
      record.elapsed().si() > 0 ? record.low_clock_time / record.elapsed() : 0.0;
  models::ClockBlend blend = state.blend;
  if (!(blend.high.si() > 0)) blend = models::ClockBlend{state.frequency, state.frequency, 0};
  // The record says what really ran: a switch the op finished before never happened.
  if (record.low_clock_time.si() <= 0) blend.low_share = 0;
  if (blend.blended() && record.low_work_share > 0) blend.low_share = record.low_work_share;
  models::EnergyBreakdown e = models::at_clock_blend(row.energy, curve(), blend, low_time_share);
  if (state.gated) {
    // Gated units leak only while they compute.
    const double busy = row.duration.si() > 0 ? row.compute_time / row.duration : 1.0;
    e.static_energy -= models::gating_saving(e.static_energy, chip_.power.management.gating, busy);
  }
  return e;
}

std::optional<models::SpanCost> PowerGovernor::cost_at(size_t index, Frequency f) const {
  const double scale = f / curve().nominal().frequency;
  models::OpRecord record;
  if (pricer_) {
    record = pricer_(index, scale);
  } else {
    // Forecast from the op's last run: its clock-bound time stretches with the clock, the rest
    // (HBM, latency) stays (the serving layer's rule, docs/power.md).
    const auto last = last_run_.find(key(index));
    if (last == last_run_.end()) return std::nullopt;
    const models::OpRecord& seen = last->second;
    const Duration compute =
        cycles_to_duration(seen.max_tile_compute_cycles, chip_.tiles.clock * seen.clock_scale);
    const Duration elapsed = seen.elapsed() + compute * (seen.clock_scale / scale - 1.0);
    record = seen;
    record.start = Duration();
    record.end = elapsed.si() > 0 ? elapsed : seen.elapsed();
    record.clock_scale = scale;
    record.low_clock_scale = scale;
    record.low_clock_time = Duration();
    record.low_work_share = 0;
  }
  const stats::OpResult row =
      stats::account_op(record, program_[index], chip_, 0, -1, "", Duration());
  OpPowerState state;
  state.frequency = f;
  state.blend = models::ClockBlend{f, f, 0};
  state.gated = gated(op_phases_[index]);
  return models::SpanCost{row.duration, adjust(row, state, record).total()};
}

bool PowerGovernor::observe(size_t index, const models::OpRecord& record) {
  const stats::OpResult row =
      stats::account_op(record, program_[index], chip_, 0, -1, "", Duration());
  const models::EnergyBreakdown e = adjust(row, states_[index], record);
  const Duration elapsed = record.elapsed();
  if (!(elapsed.si() > 0)) return false;
  controller_.observe(elapsed, e.total() / elapsed, e.static_energy / elapsed);
  return true;
}

std::string PowerGovernor::key(size_t index) const {
  return op_phases_[index] + "/" + program_[index].label;
}

models::OpControl PowerGovernor::before_op(size_t index,
                                           const std::vector<models::OpRecord>& done) {
  const bool observe_previous = index > 0 && index != fresh_from_;
  if (observe_previous && index - 1 < done.size() && index - 1 < states_.size()) {
    const models::OpRecord& record = done[index - 1];
    if (observe(index - 1, record)) {
      forecast_[key(index - 1)] = controller_.last_dynamic_at_nominal();
      if (!pricer_) last_run_[key(index - 1)] = record;
    }
    const auto seen = forecast_.find(key(index));
    if (seen != forecast_.end()) controller_.forecast(seen->second);
  }
  models::OpControl control;
  Duration time_at_high;
  const bool priced = pricer_ || last_run_.count(key(index)) > 0;
  if (priced) {
    // Sub-op control: two adjacent grid clocks whose blend pays the debt back exactly.
    std::map<double, models::SpanCost> costs;  // each clock priced once
    const auto price = [&](Frequency f) {
      auto at = costs.find(f.si());
      if (at == costs.end()) at = costs.emplace(f.si(), *cost_at(index, f)).first;
      return at->second;
    };
    const auto landed = last_clock_.find(key(index));
    const models::ClockBlend& blend = controller_.choose_blend(
        price, landed != last_clock_.end() ? landed->second : controller_.frequency());
    time_at_high = price(blend.high).time;
    last_clock_[key(index)] = blend.high;
  }
  OpPowerState state;
  state.blend = controller_.blend();
  state.frequency = controller_.frequency();
  state.throttled = controller_.throttled();
  const std::string& phase = op_phases_[index];
  state.gated = gated(phase);
  if (index > 0 && gated(op_phases_[index - 1]) != state.gated) {
    state.stall = chip_.power.management.gating.wake_latency;
    state.wake_energy = chip_.power.management.gating.wake_energy;
  }
  states_.push_back(state);
  // Exactly 1.0 at the nominal point, so an unthrottled run times bit-identically.
  const Frequency nominal = curve().nominal().frequency;
  control.clock_scale = state.frequency / nominal;
  if (state.blend.blended()) {
    control.low_clock_scale = state.blend.low / nominal;
    control.low_work_share = state.blend.low_share;
    control.switch_after = time_at_high * (1.0 - state.blend.low_share);
  }
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
    at_nominal.blend = models::ClockBlend{at_nominal.frequency, at_nominal.frequency, 0};
    const models::EnergyBreakdown e = adjust(row, at_nominal, nominal[i]);
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

void PowerGovernor::carry_over(size_t first_op, size_t end_op,
                               const std::vector<models::OpRecord>& done) {
  // The pass's last op is observed as the next op's before_op would have.
  if (end_op > first_op && end_op - 1 < done.size() && end_op - 1 < states_.size()) {
    observe(end_op - 1, done[end_op - 1]);
  }
  states_.resize(std::min(states_.size(), first_op));
  fresh_from_ = first_op;
}

}  // namespace scoville::engine
