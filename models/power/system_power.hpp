// All-in power of a deployed system per chip, and the throughput normalisations built on it
// (InferenceX: "token throughput per all-in provisioned utility MW"; ../shared/REFERENCE.md).
// Pure arithmetic over the `power:` section of a system file (docs/power.md); what it adds to
// the chips: host CPUs and their memory, NICs, switches, memory pools, other cluster IT, and the
// facility overhead (PUE).
#pragma once

#include <cstdint>

#include "sim/base/units.hpp"

namespace scoville::models {

// A count of identical units each drawing `power` (provisioned, i.e. their rating).
struct UnitPower {
  int64_t count = 0;
  Power power;

  Power total() const { return power * static_cast<double>(count); }
};

struct SystemPowerParams {
  UnitPower hosts;         // host servers: CPUs, DRAM, fans, storage, power-supply losses
  UnitPower nics;          // scale-out NICs (and DPUs)
  UnitPower switches;      // scale-up and scale-out switches the system provisions
  UnitPower memory_pools;  // disaggregated memory (CXL or network-attached pools)
  double other_it = 0;     // other cluster IT (management, storage) as a fraction of the above
  double pue = 1;          // facility power / IT power (cooling, conversion), >= 1
};

struct AllInPower {
  Power chips;               // the chips' own power, all of them
  Power infrastructure;      // hosts + NICs + switches + pools
  Power it;                  // (chips + infrastructure) x (1 + other_it)
  Power facility;            // it x PUE
  Power per_chip;            // facility / chip count
  double ratio_to_chip = 0;  // all-in per chip / chip power per chip
};

// `chip_power`: per chip, the TDP for provisioned figures (InferenceX's) or a simulated average
// for energy actually drawn; `chips` > 0.
AllInPower all_in_power(const SystemPowerParams& system, int64_t chips, Power chip_power);

// InferenceX tpPerMw = tput_per_gpu x 1000 / power_kW_per_GPU: tokens/s per MW of all-in power.
double tokens_per_second_per_megawatt(double tokens_per_second_per_chip, Power all_in_per_chip);
// All-in energy per token: all-in power per chip / throughput per chip.
Energy all_in_energy_per_token(double tokens_per_second_per_chip, Power all_in_per_chip);

}  // namespace scoville::models
