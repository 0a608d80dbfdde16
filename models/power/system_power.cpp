#include "models/power/system_power.hpp"

namespace scoville::models {

AllInPower all_in_power(const SystemPowerParams& s, int64_t chips, Power chip_power) {
  AllInPower a;
  if (chips <= 0) return a;
  a.chips = chip_power * static_cast<double>(chips);
  a.infrastructure = s.hosts.total() + s.nics.total() + s.switches.total() + s.memory_pools.total();
  a.it = (a.chips + a.infrastructure) * (1.0 + s.other_it);
  a.facility = a.it * s.pue;
  a.per_chip = a.facility / static_cast<double>(chips);
  a.ratio_to_chip = chip_power.si() > 0 ? a.per_chip / chip_power : 0.0;
  return a;
}

double tokens_per_second_per_megawatt(double tokens_per_second_per_chip, Power all_in_per_chip) {
  return all_in_per_chip.si() > 0 ? tokens_per_second_per_chip * 1e6 / all_in_per_chip.si() : 0.0;
}

Energy all_in_energy_per_token(double tokens_per_second_per_chip, Power all_in_per_chip) {
  return tokens_per_second_per_chip > 0 ? Energy(all_in_per_chip.si() / tokens_per_second_per_chip)
                                        : Energy();
}

}  // namespace scoville::models
