// Power management of one chip during a SystemC run: before each op it feeds the previous op's
// power to the cap controller and sets the tile clock it chose (DVFS at op granularity). It
// notes a gating wake-up at each change into or out of a gated phase; the wake-up's stall and
// energy are added to the phase once by the reports, outside the simulated timeline (so that a
// sampled iteration does not multiply them, and HBM prefetch does not overlap them). The op
// energies it reports are the ones the controller saw.
//
// Sub-op control: while the controller regulates, an op runs as a blend of two adjacent grid
// clocks (models/power/clock_blend.hpp). With a pricer (the op table: an op's record at any
// clock, exactly) the blend is chosen from the op's own costs at the grid clocks; without one
// (the SystemC chip run) from a forecast made from the same op's last run (layers repeat), and
// the chip model switches the tile clocks inside the op after the forecast time at the higher
// clock. An op met for the first time runs at one clock.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/chip/chip_module.hpp"
#include "models/power/cap_controller.hpp"
#include "sim/stats/results.hpp"

namespace scoville::engine {

// The power state an op ran in.
struct OpPowerState {
  Frequency frequency;       // tile clock (the matrix engine's sustained clock scales with it)
  models::ClockBlend blend;  // frequency is blend.high; blend.low for the op's last part
  bool throttled = false;
  bool gated = false;  // the op's phase has its matrix engines gated
  Duration stall;      // gating wake-up before the op (added to its phase, not to the op)
  Energy wake_energy;  // and its energy
};

// An op's record as the chip model would write it had the op run whole at `clock_scale` of the
// configured clocks (the op table prices one).
using OpPricer = std::function<models::OpRecord(size_t index, double clock_scale)>;

class PowerGovernor {
 public:
  // `op_phases[i]`: the phase name of program op i. The chip must have power management.
  PowerGovernor(const models::ChipParams& chip, const std::vector<models::WorkDescriptor>& program,
                std::vector<std::string> op_phases);

  // Exact sub-op control: the governor prices op candidates at grid clocks through `pricer`.
  void set_pricer(OpPricer pricer) { pricer_ = std::move(pricer); }
  models::OpControl before_op(size_t index, const std::vector<models::OpRecord>& done);
  // Starts the iteration whose first program op is `first_op` from the state a run of such
  // iterations would leave: the controller's moving average at the iteration's own power at the
  // nominal point (`nominal`: its ops as they run there, in order), no energy owed, and nothing
  // carried over from the previous iteration's ops. A sampled decode step is one of a thousand
  // alike, not the step after the prefill: without this, a decode phase under the cap ran
  // throttled on the debt the prefill left (docs/power.md, "Caps and sampled iterations").
  void begin_iteration(size_t first_op, const std::vector<models::OpRecord>& nominal);
  // The controller regulates (begin_iteration: the iteration's own average is over the cap).
  bool regulating() const { return controller_.regulating(); }
  Energy debt() const { return controller_.debt(); }
  // After a pass over the iteration's ops [first_op, end_op) (records in `done`), keeps the
  // controller as that pass left it (moving average, energy owed) and forgets the pass's op
  // states, so that the iteration can be run again from there: a run of such iterations back to
  // back starts each one with the debt the one before left. One pass from begin_iteration's
  // state (nothing owed) ends an iteration whose ops straddle the cap with energy still owed,
  // and a sampled step would average over the cap by it.
  void carry_over(size_t first_op, size_t end_op, const std::vector<models::OpRecord>& done);
  const std::vector<OpPowerState>& states() const { return states_; }
  const models::DvfsCurve& curve() const { return controller_.curve(); }

  // The energy of an op whose row was priced at the nominal point (stats::account_op), as it
  // was run: at its operating point(s) (`record` says how long it ran at the lower clock of a
  // blend), with gating savings.
  models::EnergyBreakdown adjust(const stats::OpResult& nominal_row, const OpPowerState& state,
                                 const models::OpRecord& record) const;
  // Energy of the wake-up before an op: the wake energy, and static power over the stall.
  models::EnergyBreakdown stall_energy(const OpPowerState& state) const;

 private:
  bool gated(const std::string& phase) const;
  // The op's cost had it run whole at f: exactly through the pricer, or forecast from the same
  // op's last run (nullopt when it has not run yet).
  std::optional<models::SpanCost> cost_at(size_t index, Frequency f) const;

  const models::ChipParams& chip_;
  const std::vector<models::WorkDescriptor>& program_;
  std::vector<std::string> op_phases_;
  models::CapController controller_;
  std::vector<OpPowerState> states_;
  // Dynamic power at the nominal point last seen per op (phase and name): layers repeat, so
  // the same op of the previous layer is the best forecast of the next one's power.
  std::map<std::string, Power> forecast_;
  // The last run of each op (phase and name), for the forecast pricer of the SystemC path.
  std::map<std::string, models::OpRecord> last_run_;
  OpPricer pricer_;
  // Where each op's blend landed last time: the search for the next one starts there.
  std::map<std::string, Frequency> last_clock_;
  size_t fresh_from_ = 0;  // begin_iteration's first op: before it, nothing is observed
  std::string key(size_t index) const;
  // Feeds op `index`'s power as it ran (its record, the state it ran in) to the controller;
  // false for an op that took no time.
  bool observe(size_t index, const models::OpRecord& record);
};

}  // namespace scoville::engine
