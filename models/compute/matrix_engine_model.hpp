// Cycle cost of a matrix product on one tile's matrix engine.
#pragma once

#include <cstdint>

#include "models/chip/chip_params.hpp"

namespace scoville::models {

class MatrixEngineModel {
 public:
  explicit MatrixEngineModel(const MatrixEngineParams& params) : params_(params) {}

  // Cycles for [m x k] * [k x n] at precision p as one work block: the output is cut into
  // ceil(m/rows) x ceil(n/cols) blocks, each taking ceil(k/k_per_cycle) cycles, plus one
  // pipeline fill/drain. Partial blocks at the edges cost a full block: that is the edge
  // under-utilisation real arrays pay. Requires supports(p).
  double cycles(int64_t m, int64_t n, int64_t k, MathPrecision p) const;

  // Fraction of peak MACs doing useful work for this shape (1 = no waste).
  double utilisation(int64_t m, int64_t n, int64_t k, MathPrecision p) const;

 private:
  MatrixEngineParams params_;
};

}  // namespace scoville::models
