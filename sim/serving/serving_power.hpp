// Power management of a serving pool (docs/power.md, "Serving"): the chip's cap controller
// (models/power) runs iteration by iteration. Before each iteration it sees the idle gap since
// the last one at the chip's idle power; when it regulates it picks the clock whose re-priced
// iteration power is nearest its target; the iteration is then paid at that clock:
//   time'   = time + clock_bound_time x (f_nom / f - 1)   (compute-bound work stretches,
//                                                           HBM-bound work, collectives and
//                                                           software do not)
//   energy' = on-chip dynamic x (V/V_nom)^2 + HBM + link + static x (time'/time) x V/V_nom
// and the controller observes it. At the nominal clock the cost is returned untouched, so a cap
// above the pool's peak power leaves a serving run bit-identical. All chips of a pool run the
// same work, so one controller stands for each of them (power per chip = pool power / chips).
// The controller's state is kept per kind of iteration (prefill, decode, mixed): each kind is
// held to the cap on its own average, as a run of such iterations back to back would be, and
// credit earned by the decode iterations under the cap is not spent by the mixed ones over it
// (docs/power.md, "Serving": why, and what a board's single window would do instead). The idle
// gaps are seen by every kind's state: the chip draws idle power whichever kind comes next.
// It also keeps the per-phase power report of the pool: average and peak power per component
// group, time throttled, time-weighted clock.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/power/cap_controller.hpp"
#include "models/power/power_management_params.hpp"
#include "sim/serving/iteration_cost_model.hpp"

namespace scoville::serving {

// What the chip file says about a pool's chips' power management.
struct PoolPower {
  bool managed = false;                      // DVFS and a cap controller
  models::PowerManagementParams management;  // its cap already the one to hold (--power-cap)
  Power static_per_chip;                     // static power at the nominal point
};

// The components of the report: on-chip dynamic (matrix, vector, SRAMs, NoC: scale with V^2;
// active power x busy time: with f V^2),
// HBM and links (own supplies: do not), static power.
struct PowerGroups {
  double onchip = 0, hbm = 0, link = 0, static_part = 0;  // J, or W for peaks

  double total() const { return onchip + hbm + link + static_part; }
};

// One kind of iteration of one pool.
struct PhasePower {
  std::string phase;  // "prefill", "decode" or "mixed" (a batch with both)
  int64_t iterations = 0;
  Duration time;            // busy time in this phase
  Duration throttled_time;  // of it, below the nominal clock
  double frequency_seconds = 0;
  PowerGroups energy;         // J, all chips of the pool
  PowerGroups peak_per_chip;  // W, highest of any one iteration, per group
  double peak_total_per_chip = 0;

  double average_power_per_chip(int64_t chips) const;  // W
  double effective_frequency() const;                  // Hz, time-weighted
};

struct PoolPowerReport {
  bool managed = false;
  int64_t chips = 1;
  double cap_w = 0;              // per chip, 0 when not managed
  double nominal_frequency = 0;  // Hz, 0 when not managed
  double idle_power_per_chip_w = 0;
  std::vector<PhasePower> phases;  // in order of first appearance
};

// `nominal` re-priced at clock f of `curve` (needs nominal.power).
IterationCost at_clock(const IterationCost& nominal, const models::DvfsCurve& curve, Frequency f);

class PoolPowerState {
 public:
  PoolPowerState(const PoolPower& power, int64_t chips, Power idle_per_chip);

  // The pool had no work for `gap` before its next iteration.
  void idle(Duration gap);
  // What the pool pays for an iteration the cost model priced at the nominal clock.
  IterationCost run(const IterationCost& nominal, const IterationBatch& batch);

  const PoolPowerReport& report() const { return report_; }

 private:
  PhasePower& phase_of(const IterationBatch& batch);
  void account(PhasePower& phase, const IterationCost& cost, Frequency f, bool throttled,
               Frequency low, double low_time_share);

  // The controller state of one kind of iteration (phase_name: prefill, decode, mixed).
  struct PhaseController {
    std::string phase;
    models::CapController controller;
    bool started = false;  // has run an iteration (idle gaps before it are not watched)
  };
  models::CapController& controller_of(const std::string& phase);

  PoolPower power_;
  int64_t chips_;
  Power idle_per_chip_;
  std::vector<PhaseController> controllers_;  // in order of first appearance
  PoolPowerReport report_;
};

}  // namespace scoville::serving
