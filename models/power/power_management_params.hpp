// Power management of one chip as the models see it: DVFS operating points, the power cap and
// its controller's time constant, and phase-aware power gating. Plain resolved data, filled in
// by sim/config from the optional `power_management:` section of a chip file (docs/power.md).
#pragma once

#include <string>
#include <vector>

#include "sim/base/units.hpp"

namespace scoville::models {

// One DVFS point: the compute clock and the core voltage it needs. Between two listed points
// the voltage is interpolated linearly in frequency (V-f curves are close to linear over the
// range a power controller uses).
struct OperatingPoint {
  Frequency frequency;
  Voltage voltage;
};

// Phase-aware gating of the matrix engines in phases whose ops leave them mostly idle (decode):
// in a gated phase their share of the chip's static power is paid only while they compute (the
// busiest tile's engine time of each op) and `residual` of it otherwise. Each change into or out
// of a gated phase stalls the chip for wake_latency and costs wake_energy (power rails settling).
struct GatingParams {
  bool enabled = false;
  double matrix_static_share = 0;   // matrix engines' share of the chip's static power, [0, 1]
  double residual = 0;              // fraction of the gated share still leaking, [0, 1]
  std::vector<std::string> phases;  // names of the gated phases ("decode", "prefill")
  Duration wake_latency;
  Energy wake_energy;
};

struct PowerManagementParams {
  bool present = false;                // the chip file has a power_management section
  std::vector<OperatingPoint> points;  // ascending frequency; the last one is the tile clock
  Power cap;                           // average power the controller holds the chip to
  Duration time_constant;              // of the exponential moving average the controller reads
  Frequency frequency_step;            // granularity of the clock between points (0: points only)
  // Once regulating, the controller keeps regulating (and keeps the energy credit light spans
  // earned) until its average falls below cap x (1 - hysteresis): a short light op between two
  // heavy ones must not reset it. 0: it stops as soon as the average is under the cap again.
  double hysteresis = 0;
  GatingParams gating;

  const OperatingPoint& nominal() const { return points.back(); }
};

}  // namespace scoville::models
