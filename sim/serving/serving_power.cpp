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
    controller_.emplace(power_.management, power_.static_per_chip);
    report_.cap_w = power_.management.cap.si();
    report_.nominal_frequency = controller_->curve().nominal().frequency.si();
  }
}

void PoolPowerState::idle(Duration gap) {
  // The controller watches the chip through its idle gaps too: they lower its average and pay
  // back energy drawn above the cap. Before the first iteration there is nothing to watch.
  if (!controller_ || !started_ || !(gap.si() > 0)) return;
  controller_->observe(gap, idle_per_chip_, idle_per_chip_);
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
                             bool throttled) {
  phase.iterations += 1;
  phase.time += cost.time;
  if (throttled) phase.throttled_time += cost.time;
  phase.frequency_seconds += f.si() * cost.time.si();
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
  if (!controller_ || !nominal.power) {
    account(phase, nominal, Frequency(report_.nominal_frequency), false);
    return nominal;
  }
  models::CapController& c = *controller_;
  const models::DvfsCurve& curve = c.curve();
  const double chips = static_cast<double>(chips_);
  // The controller knows what this iteration draws at each clock (firmware learns a repeating
  // load; the serving layer has the exact price), so its choice needs no forecast error.
  const IterationPowerParts& parts = *nominal.power;
  const Energy onchip = parts.energy.matrix + parts.energy.vector + parts.energy.tile_sram +
                        parts.energy.shared_sram + parts.energy.noc;
  const Energy offchip = parts.energy.hbm + parts.energy.link;
  c.forecast_with([&](Frequency f) {
    // at_clock's arithmetic without building the cost (this runs for every grid clock).
    if (f == curve.nominal().frequency) return nominal.energy / nominal.time / chips;
    const Duration time =
        nominal.time + parts.clock_bound_time * (curve.nominal().frequency / f - 1.0);
    const Energy energy =
        onchip * curve.dynamic_energy_scale(f) + offchip +
        parts.energy.static_energy * (time / nominal.time) * curve.static_power_scale(f) +
        parts.energy.active * (time / nominal.time) * curve.dynamic_power_scale(f);
    return energy / time / chips;
  });
  const Frequency f = c.frequency();
  const bool throttled = c.throttled();
  const IterationCost cost = throttled ? at_clock(nominal, curve, f) : nominal;
  c.observe(cost.time, cost.energy / cost.time / chips,
            cost.power->energy.static_energy / cost.time / chips);
  started_ = true;
  account(phase, cost, f, throttled);
  return cost;
}

}  // namespace scoville::serving
