#include "sim/serving/physical_limits.hpp"

#include <sstream>

#include "sim/base/unit_parser.hpp"
#include "workloads/mapping/map_iteration.hpp"
#include "workloads/mapping/memory_footprint.hpp"

namespace scoville::serving {

void check_context(const workloads::ModelConfig& model, int64_t isl, int64_t osl,
                   const SourceLocation& where, const std::string& field) {
  if (isl + osl <= model.max_context()) return;
  throw InputError(where, field,
                   "isl + osl = " + std::to_string(isl) + " + " + std::to_string(osl) + " = " +
                       std::to_string(isl + osl) + " tokens exceeds the maximum context of " +
                       "model '" + model.name() + "' (max_context " +
                       std::to_string(model.max_context()) + " tokens); reduce isl or osl");
}

void check_single_chip_fit(const workloads::ModelConfig& model, const models::ChipParams& chip,
                           int64_t batch, int64_t tokens, const std::string& chip_file) {
  const Bytes weights = model.weight_bytes();
  const Bytes kv = model.kv_bytes(tokens) * static_cast<double>(batch);
  const Bytes needed = weights + kv;
  if (needed <= chip.hbm.capacity) return;
  std::ostringstream msg;
  msg << "model '" << model.name() << "' does not fit on one '" << chip.name << "' chip: needs "
      << format_si(needed.si(), "B") << " (weights " << format_si(weights.si(), "B")
      << " + KV cache " << format_si(kv.si(), "B") << " for " << batch << " x " << tokens
      << " tokens) but HBM holds " << format_si(chip.hbm.capacity.si(), "B")
      << "; reduce --batch, --isl or --osl";
  throw InputError(SourceLocation{chip_file, 0, 0}, "chip.hbm.capacity", msg.str());
}

void check_mapped_fit(const workloads::ModelConfig& model, const workloads::PoolMapping& mapping,
                      const models::ChipParams& chip, int64_t batch, int64_t context) {
  const workloads::MappedIteration mapped = workloads::map_iteration(
      model, workloads::IterationShape{workloads::Phase::kDecode, batch, 1, context}, mapping);
  workloads::check_fit(mapped, workloads::memory_footprint(model, mapped, chip.hbm.capacity));
}

void check_power_cap(Power cap, const models::ChipParams& chip, const SourceLocation& where,
                     const std::string& field) {
  // Leakage scales with the voltage (models/power/dvfs_curve.hpp): the least static power the
  // chip can draw is at its lowest operating point.
  const models::PowerManagementParams& m = chip.power.management;
  const double scale = m.points.empty() || !(m.nominal().voltage.si() > 0)
                           ? 1.0
                           : m.points.front().voltage.si() / m.nominal().voltage.si();
  const Power floor = chip.power.static_power * scale;
  if (cap > floor) return;
  throw InputError(where, field,
                   "power cap " + format_si(cap.si(), "W") + " is at or below the static power " +
                       format_si(floor.si(), "W") + " that chip '" + chip.name +
                       "' draws at its lowest operating point (power.static " +
                       format_si(chip.power.static_power.si(), "W") +
                       " at the nominal voltage): no clock can hold it; expected a cap above " +
                       format_si(floor.si(), "W"));
}

}  // namespace scoville::serving
