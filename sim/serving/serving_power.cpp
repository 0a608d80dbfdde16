#include "sim/serving/serving_power.hpp"

#include <algorithm>

#include "models/power/power_accounting.hpp"

namespace scoville::serving {

namespace {

PowerGroups groups_of(const IterationCost& cost) {
  PowerGroups g;
  if (!cost.power) {
    g.onchip = cost.energy.si();  // a model that does not split its energy: all of it, unsplit
    return g;
  }
  const models::EnergyBreakdown& e = cost.power->energy;
  g.onchip = (e.matrix + e.vector + e.tile_sram + e.shared_sram + e.noc + e.active).si();
  g.hbm = e.hbm.si();
  g.link = e.link.si();
  g.static_part = e.static_energy.si();
  return g;
}

std::string phase_name(const IterationBatch& batch) {
  const bool prefill = batch.prefill_tokens() > 0;
  const bool decode = batch.decode_sequences() > 0;
  if (prefill && decode) return "mixed";
  return prefill ? "prefill" : "decode";
}

}  // namespace

double PhasePower::average_power_per_chip(int64_t chips) const {
  return time.si() > 0 ? energy.total() / time.si() / static_cast<double>(chips) : 0.0;
}

double PhasePower::effective_frequency() const {
  return time.si() > 0 ? frequency_seconds / time.si() : 0.0;
}

IterationCost at_clock(const IterationCost& nominal, const models::DvfsCurve& curve, Frequency f) {
  IterationCost out = nominal;
  const IterationPowerParts& parts = *nominal.power;
  const double slow = curve.nominal().frequency / f;  // >= 1 below the nominal clock
  out.time = nominal.time + parts.clock_bound_time * (slow - 1.0);
  // Static and active energy are powers x the stretched time; at_operating_point then scales
  // them by V and by f V^2. (Active power is paid over busy time only; the iteration's software
  // time does not stretch, so stretching active energy by the whole iteration's ratio is a
  // slight underestimate when software time is a large share.)
  models::EnergyBreakdown stretched = parts.energy;
  if (nominal.time.si() > 0) {
    stretched.static_energy = parts.energy.static_energy * (out.time / nominal.time);
    stretched.active = parts.energy.active * (out.time / nominal.time);
  }
  out.power->energy = models::at_operating_point(stretched, curve, f);
  out.power->clock_bound_time = parts.clock_bound_time * slow;
  out.energy = out.power->energy.total();
  return out;
}

PoolPowerState::PoolPowerState(const PoolPower& power, int64_t chips, Power idle_per_chip)
    : power_(power), chips_(std::max<int64_t>(1, chips)), idle_per_chip_(idle_per_chip) {
  report_.managed = power.managed && !power.management.points.empty();
  report_.chips = chips_;
  report_.idle_power_per_chip_w = idle_per_chip.si();
  if (report_.managed) {
    report_.cap_w = power_.management.cap.si();
    report_.nominal_frequency =
        models::DvfsCurve(power_.management.points).nominal().frequency.si();
  }
}

void PoolPowerState::idle(Duration gap) {
  // The controllers watch the chip through its idle gaps too: they lower the average and pay
  // back energy drawn above the cap, whichever kind of iteration comes next. Before a kind's
  // first iteration there is nothing to watch.
  if (!(gap.si() > 0)) return;
  for (PhaseController& p : controllers_) {
    if (p.started) p.controller.observe(gap, idle_per_chip_, idle_per_chip_);
  }
}

models::CapController& PoolPowerState::controller_of(const std::string& phase) {
  for (PhaseController& p : controllers_) {
    if (p.phase == phase) return p.controller;
  }
  controllers_.push_back(
      PhaseController{phase, models::CapController(power_.management, power_.static_per_chip)});
  return controllers_.back().controller;
}

PhasePower& PoolPowerState::phase_of(const IterationBatch& batch) {
  const std::string name = phase_name(batch);
  for (PhasePower& p : report_.phases) {
    if (p.phase == name) return p;
  }
  report_.phases.push_back(PhasePower{});
  report_.phases.back().phase = name;
  return report_.phases.back();
}

void PoolPowerState::account(PhasePower& phase, const IterationCost& cost, Frequency f,
                             bool throttled, Frequency low, double low_time_share) {
  phase.iterations += 1;
  phase.time += cost.time;
  if (f.si() < report_.nominal_frequency) {
    phase.throttled_time += cost.time;
  } else if (throttled) {
    phase.throttled_time += cost.time * low_time_share;  // a blend from the nominal clock down
  }
  phase.frequency_seconds +=
      (f.si() * (1.0 - low_time_share) + low.si() * low_time_share) * cost.time.si();
  const PowerGroups e = groups_of(cost);
  phase.energy.onchip += e.onchip;
  phase.energy.hbm += e.hbm;
  phase.energy.link += e.link;
  phase.energy.static_part += e.static_part;
  const double per_chip_s = cost.time.si() * static_cast<double>(chips_);
  PowerGroups& peak = phase.peak_per_chip;
  peak.onchip = std::max(peak.onchip, e.onchip / per_chip_s);
  peak.hbm = std::max(peak.hbm, e.hbm / per_chip_s);
  peak.link = std::max(peak.link, e.link / per_chip_s);
  peak.static_part = std::max(peak.static_part, e.static_part / per_chip_s);
  phase.peak_total_per_chip = std::max(phase.peak_total_per_chip, cost.energy.si() / per_chip_s);
}

IterationCost PoolPowerState::run(const IterationCost& nominal, const IterationBatch& batch) {
  PhasePower& phase = phase_of(batch);
  if (!report_.managed || !nominal.power) {
    account(phase, nominal, Frequency(report_.nominal_frequency), false,
            Frequency(report_.nominal_frequency), 0);
    return nominal;
  }
  models::CapController& c = controller_of(phase.phase);
  const models::DvfsCurve& curve = c.curve();
  const double chips = static_cast<double>(chips_);
  // The controller knows what this iteration draws at each clock (firmware learns a repeating
  // load; the serving layer has the exact price), so its choice needs no forecast error.
  const IterationPowerParts& parts = *nominal.power;
  const Energy onchip = parts.energy.matrix + parts.energy.vector + parts.energy.tile_sram +
                        parts.energy.shared_sram + parts.energy.noc;
  const Energy offchip = parts.energy.hbm + parts.energy.link;
  // Sub-op control as in the engine (models/power/clock_blend.hpp): the iteration runs as a blend
  // of two adjacent grid clocks whose energy above the cap pays the debt back, so an iteration
  // as long as tau or longer holds the cap instead of swinging around it.
  const auto per_chip = [&](Frequency f) {
    // at_clock's arithmetic without building the cost (the search prices a few grid clocks).
    if (f == curve.nominal().frequency) {
      return models::SpanCost{nominal.time, nominal.energy / chips};
    }
    const Duration time =
        nominal.time + parts.clock_bound_time * (curve.nominal().frequency / f - 1.0);
    const Energy energy =
        onchip * curve.dynamic_energy_scale(f) + offchip +
        parts.energy.static_energy * (time / nominal.time) * curve.static_power_scale(f) +
        parts.energy.active * (time / nominal.time) * curve.dynamic_power_scale(f);
    return models::SpanCost{time, energy / chips};
  };
  const models::ClockBlend blend = c.choose_blend(per_chip, c.frequency());
  const Frequency f = blend.high;
  const bool throttled = c.throttled();
  IterationCost cost = f == curve.nominal().frequency ? nominal : at_clock(nominal, curve, f);
  double low_time_share = 0;
  if (blend.blended()) {
    // Each component and the time blend by the share of the work done at each clock.
    const IterationCost low = at_clock(nominal, curve, blend.low);
    const double x = blend.low_share;
    low_time_share = low.time * x / (cost.time * (1.0 - x) + low.time * x);
    cost.time = cost.time * (1.0 - x) + low.time * x;
    models::EnergyBreakdown& e = cost.power->energy;
    const models::EnergyBreakdown& l = low.power->energy;
    for (auto part : {&models::EnergyBreakdown::matrix, &models::EnergyBreakdown::vector,
                      &models::EnergyBreakdown::tile_sram, &models::EnergyBreakdown::shared_sram,
                      &models::EnergyBreakdown::noc, &models::EnergyBreakdown::hbm,
                      &models::EnergyBreakdown::link, &models::EnergyBreakdown::active,
                      &models::EnergyBreakdown::static_energy}) {
      e.*part = e.*part * (1.0 - x) + l.*part * x;
    }
    cost.power->clock_bound_time =
        cost.power->clock_bound_time * (1.0 - x) + low.power->clock_bound_time * x;
    cost.energy = e.total();
  }
  c.observe(cost.time, cost.energy / cost.time / chips,
            cost.power->energy.static_energy / cost.time / chips);
  for (PhaseController& p : controllers_) p.started |= p.phase == phase.phase;
  account(phase, cost, f, throttled, blend.low, low_time_share);
  return cost;
}

}  // namespace scoville::serving
