#include "sim/cli/serving_power_report.hpp"

#include <cstdio>

#include "sim/base/unit_parser.hpp"
#include "sim/serving/physical_limits.hpp"

namespace scoville::cli {

Power parse_power_cap(const std::string& text, const std::string& flag) {
  const SourceLocation cli{"<command line>", 0, 0};
  Power cap;
  try {
    cap = Power(parse_quantity(text, Dimension::kPower));
  } catch (const UnitParseError& e) {
    throw InputError(cli, flag, e.what());
  }
  if (!(cap.si() > 0)) throw InputError(cli, flag, "expected a power > 0 W");
  return cap;
}

void apply_power_cap(ServingHardware& hw, const std::optional<Power>& cap,
                     const SourceLocation& where, const std::string& key) {
  if (!cap) return;
  if (!hw.chip.power.management.present) {
    throw InputError(where, key,
                     "chip '" + hw.chip.name +
                         "' has no power_management section (DVFS points, time constant) to "
                         "hold a cap with");
  }
  serving::check_power_cap(*cap, hw.chip, where, key);
  hw.chip.power.management.cap = *cap;
}

void set_power_inputs(const ServingHardware& hw, serving::MetricInputs& metrics) {
  // A scenario's explicit all-in power per chip wins over the system file's section.
  if (!hw.system_power || metrics.all_in_power_per_chip) return;
  metrics.system_power = hw.system_power;
  metrics.system_chips = hw.system_chips;
}

void print_power_report(std::ostream& out, const ServingPoint& point) {
  const serving::SchedulerStats& stats = point.result.trace.stats;
  char line[320];
  out << "# power per chip, by pool and phase (W; on-chip dynamic / HBM / links / static)\n";
  for (size_t i = 0; i < stats.pools.size(); ++i) {
    const serving::PoolStats& p = stats.pools[i];
    const serving::PoolPowerReport& r = p.power;
    for (const serving::PhasePower& ph : r.phases) {
      const double t = ph.time.si() * static_cast<double>(r.chips);
      const serving::PowerGroups& e = ph.energy;
      const serving::PowerGroups& k = ph.peak_per_chip;
      std::snprintf(
          line, sizeof line,
          "  pool %zu %-8s avg %7.1f W (%.1f / %.1f / %.1f / %.1f)  peak %7.1f W "
          "(%.1f / %.1f / %.1f / %.1f)  throttled %5.1f%%  clock %s\n",
          i, ph.phase.c_str(), ph.average_power_per_chip(r.chips), e.onchip / t, e.hbm / t,
          e.link / t, e.static_part / t, ph.peak_total_per_chip, k.onchip, k.hbm, k.link,
          k.static_part, ph.time.si() > 0 ? 100.0 * ph.throttled_time.si() / ph.time.si() : 0.0,
          r.managed ? (std::to_string(ph.effective_frequency() / 1e9).substr(0, 5) + " GHz of " +
                       std::to_string(r.nominal_frequency / 1e9).substr(0, 5))
                          .c_str()
                    : "nominal (no power management)");
      out << line;
    }
    std::snprintf(
        line, sizeof line, "  pool %zu idle     %7.1f W per chip for %.4g s (%.4g J)%s\n", i,
        r.idle_power_per_chip_w, p.idle_time.si(), p.idle_energy.si(),
        r.managed ? ("; cap " + std::to_string(static_cast<int64_t>(r.cap_w)) + " W").c_str() : "");
    out << line;
  }
}

output::Table serving_power_table(const std::vector<ServingPoint>& points) {
  std::vector<int64_t> point, pool, iterations, managed;
  std::vector<std::string> phase;
  std::vector<double> time, throttled, clock, avg, onchip, hbm, link, stat, peak, peak_onchip,
      peak_hbm, peak_link, peak_static, cap, idle_power, idle_time, idle_energy;
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& pools = points[i].result.trace.stats.pools;
    for (size_t j = 0; j < pools.size(); ++j) {
      const serving::PoolPowerReport& r = pools[j].power;
      for (const serving::PhasePower& ph : r.phases) {
        point.push_back(static_cast<int64_t>(i));
        pool.push_back(static_cast<int64_t>(j));
        phase.push_back(ph.phase);
        iterations.push_back(ph.iterations);
        managed.push_back(r.managed ? 1 : 0);
        time.push_back(ph.time.si());
        throttled.push_back(ph.throttled_time.si());
        clock.push_back(ph.effective_frequency());
        avg.push_back(ph.average_power_per_chip(r.chips));
        const double chip_s = ph.time.si() * static_cast<double>(r.chips);
        onchip.push_back(ph.energy.onchip / chip_s);
        hbm.push_back(ph.energy.hbm / chip_s);
        link.push_back(ph.energy.link / chip_s);
        stat.push_back(ph.energy.static_part / chip_s);
        peak.push_back(ph.peak_total_per_chip);
        peak_onchip.push_back(ph.peak_per_chip.onchip);
        peak_hbm.push_back(ph.peak_per_chip.hbm);
        peak_link.push_back(ph.peak_per_chip.link);
        peak_static.push_back(ph.peak_per_chip.static_part);
        cap.push_back(r.cap_w);
        idle_power.push_back(r.idle_power_per_chip_w);
        idle_time.push_back(pools[j].idle_time.si());
        idle_energy.push_back(pools[j].idle_energy.si());
      }
    }
  }
  return output::Table{"/serving_power",
                       {{"point", "1", point},
                        {"pool", "1", pool},
                        {"phase", "", phase},
                        {"iterations", "1", iterations},
                        {"power_managed", "1", managed},
                        {"busy_s", "s", time},
                        {"throttled_s", "s", throttled},
                        {"effective_frequency_Hz", "Hz", clock},
                        {"avg_power_per_chip_W", "W", avg},
                        {"avg_onchip_W", "W", onchip},
                        {"avg_hbm_W", "W", hbm},
                        {"avg_link_W", "W", link},
                        {"avg_static_W", "W", stat},
                        {"peak_power_per_chip_W", "W", peak},
                        {"peak_onchip_W", "W", peak_onchip},
                        {"peak_hbm_W", "W", peak_hbm},
                        {"peak_link_W", "W", peak_link},
                        {"peak_static_W", "W", peak_static},
                        {"power_cap_W", "W", cap},
                        {"idle_power_per_chip_W", "W", idle_power},
                        {"pool_idle_s", "s", idle_time},
                        {"pool_idle_energy_J", "J", idle_energy}},
                       {}};
}

}  // namespace scoville::cli
