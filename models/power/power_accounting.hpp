// Prices a span of work at a DVFS operating point and under power gating, from its pricing at
// the nominal point (models/energy: counts x table + static power x time). Both the cap
// controller and the reports use these, so what the controller reacts to is what is reported.
#pragma once

#include "models/energy/energy_model.hpp"
#include "models/power/clock_blend.hpp"
#include "models/power/dvfs_curve.hpp"

namespace scoville::models {

// Energy of a span run at clock f, given its energy at the nominal point. On-chip dynamic
// components (matrix, vector, tile and shared SRAM, NoC) scale with (V/V_nom)^2; HBM and links
// sit on their own supplies and do not; static energy scales with V/V_nom (static power x the
// span's own, already stretched, elapsed time); active energy (active power x busy time) scales
// with f V^2, its power at the lower clock, over the same already stretched time.
EnergyBreakdown at_operating_point(const EnergyBreakdown& nominal, const DvfsCurve& curve,
                                   Frequency f);

// The same for a span run as a blend of two clocks (sub-op control): dynamic energy by the share
// of the work done at each clock, static energy by the share of the time spent at each.
EnergyBreakdown at_clock_blend(const EnergyBreakdown& nominal, const DvfsCurve& curve,
                               const ClockBlend& blend, double low_time_share);

// Static energy saved by gating the matrix engines over a span: their share of the static
// energy, for the part of the span they do not compute, less the residual leakage.
Energy gating_saving(Energy static_energy, const GatingParams& gating, double busy_fraction);

// Idle power of a chip: static power at its lowest operating point (or at the nominal one
// without power management), less the gated matrix share when gating is configured. What a
// pool with no work draws between iterations.
Power idle_power(Power static_nominal, const PowerManagementParams& pm);

}  // namespace scoville::models
