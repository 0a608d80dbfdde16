// Power management of one chip during a SystemC run: before each op it feeds the previous op's
// power to the cap controller and sets the tile clock it chose (DVFS at op granularity), and it
// stalls the chip for the gating wake-up at each change into or out of a gated phase. The op
// energies it reports are the ones the controller saw.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/chip/chip_module.hpp"
#include "models/power/cap_controller.hpp"
#include "sim/stats/results.hpp"

namespace scoville::engine {

// The power state an op ran in.
struct OpPowerState {
  Frequency frequency;  // tile clock (the matrix engine's sustained clock scales with it)
  bool throttled = false;
  bool gated = false;  // the op's phase has its matrix engines gated
  Duration stall;      // gating wake-up paid before the op
  Energy wake_energy;  // and its energy
};

class PowerGovernor {
 public:
  // `op_phases[i]`: the phase name of program op i. The chip must have power management.
  PowerGovernor(const models::ChipParams& chip, const std::vector<models::WorkDescriptor>& program,
                std::vector<std::string> op_phases);

  models::OpControl before_op(size_t index, const std::vector<models::OpRecord>& done);
  const std::vector<OpPowerState>& states() const { return states_; }
  const models::DvfsCurve& curve() const { return controller_.curve(); }

  // The energy of an op whose row was priced at the nominal point (stats::account_op), as it
  // was run: at its operating point, with gating savings and the wake-up energy.
  models::EnergyBreakdown adjust(const stats::OpResult& nominal_row,
                                 const OpPowerState& state) const;
  // The part of adjust()'s energy spent in the op's wake-up stall: the wake energy and the
  // static energy over the stall (a phase change happens once, however many real iterations
  // the sampled iteration holding it stands for, so reports take it out of the weighting).
  models::EnergyBreakdown stall_part(const stats::OpResult& nominal_row,
                                     const OpPowerState& state) const;

 private:
  bool gated(const std::string& phase) const;

  const models::ChipParams& chip_;
  const std::vector<models::WorkDescriptor>& program_;
  std::vector<std::string> op_phases_;
  models::CapController controller_;
  std::vector<OpPowerState> states_;
};

}  // namespace scoville::engine
