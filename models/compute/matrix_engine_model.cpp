#include "models/compute/matrix_engine_model.hpp"

#include <stdexcept>

namespace scoville::models {

namespace {
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace

double MatrixEngineModel::cycles(int64_t m, int64_t n, int64_t k, MathPrecision p) const {
  if (!params_.supports(p)) {
    throw std::logic_error("matrix engine asked to run an unsupported precision");
  }
  if (m <= 0 || n <= 0 || k <= 0) return 0.0;
  const int64_t output_blocks = ceil_div(m, params_.rows) * ceil_div(n, params_.cols);
  const int64_t steps = ceil_div(k, params_.k_per_cycle[index_of(p)]);
  return static_cast<double>(output_blocks) * static_cast<double>(steps) +
         static_cast<double>(params_.pipeline_latency_cycles);
}

double MatrixEngineModel::utilisation(int64_t m, int64_t n, int64_t k, MathPrecision p) const {
  const double c = cycles(m, n, k, p);
  if (c <= 0) return 0.0;
  const double useful_macs =
      static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  return useful_macs / (c * static_cast<double>(params_.macs_per_cycle(p)));
}

}  // namespace scoville::models
