// The clock a power-limited chip holds under dense matrix work, per math precision.
//
// A chip file states one measured (or fitted) sustained clock f_a for dense matmuls of one
// precision a on random data: the clock at which that work draws the chip's TDP. The others
// follow from the same power balance, with every term but the matrix engines' own energy per
// cycle in common:
//
//   P(f) = S s(f) + (f / f_nom) (V(f) / V_nom)^2 D_p            s(f) = V(f) / V_nom
//   D_a  = (TDP - S s(f_a)) / ((f_a / f_nom) (V(f_a) / V_nom)^2)     (dynamic power at f_nom)
//   D_p  = D_a + f_nom x tiles x (MACs/cycle(p) E_mac(p) - MACs/cycle(a) E_mac(a))
//   f_p  : P(f_p) = TDP, at most the tile clock, at least the lowest DVFS point
//
// with S the static power, V(f) the DVFS curve (constant voltage without one) and E_mac the
// energy table's price of one MAC at the nominal point. D_a carries everything a dense matmul
// keeps busy besides the MACs (issue, register files, operand delivery, the chip's active power),
// whether or not the energy table prices it: only the difference of the MAC energies is taken
// from the table. HBM power is left out: a compute-bound GEMM moves little of its time's worth.
#pragma once

#include "models/chip/chip_params.hpp"

namespace scoville::models {

// The power-limited clock of dense matrix work at precision p (see above); the tile clock when
// the chip states no sustained clock or p is not supported. With only a fraction of the tiles
// busy, the dynamic power that follows the tiles shrinks with it: D_p(busy) = A + busy (D_p - A),
// A the chip's active power (clocks, issue and memory path kept toggling chip-wide,
// power.active), so the clock rises towards the tile clock. busy = 1 gives the chip's sustained
// clock for p exactly. No op is timed at busy < 1 since 2026-12-08: the tiling policy keeps every
// tile busy (a library's macro tiles only where they fill the chip), so idle tiles never free
// power within an op.
Frequency power_limited_matrix_clock(const ChipParams& chip, MathPrecision p,
                                     double busy_fraction = 1.0);

// The same dies on another board: the clock at which `reference`'s dense matrix work at its
// sustained-clock precision draws `board`'s TDP, with `board`'s static power and tile count
// (dynamic power in proportion to the busy tiles), along `reference`'s DVFS curve. At most
// `board`'s tile clock. This is how one fitted clock carries to the boards that share a die and
// differ in power limit: B200's to B300, GB200 and GB300; MI300X's to MI325X; MI355X's to MI350X
// (their chip files state the result, tests/sim/chip_clock_derivation_test.cpp re-derives it).
// `reference` must state a sustained clock.
Frequency matrix_clock_on_board(const ChipParams& reference, const ChipParams& board);

// Fills chip.tiles.matrix.sustained_clock_by_precision for every supported precision.
void resolve_matrix_clocks(ChipParams& chip);

}  // namespace scoville::models
