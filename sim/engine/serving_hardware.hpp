// The hardware a serving run prices on (`scoville inferencex`, `serve`, `validate`, `calibrate`):
// the chip, the network (a system file's, or one switch built from the chip's ports), the
// software stack, the calibration overlay, the op-cost model behind the pricing, the KV placement
// and the power cap. Resolved once per run, shared by every engine built from it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/chip/chip_params.hpp"
#include "models/host/host_params.hpp"
#include "models/network/topology.hpp"
#include "models/power/system_power.hpp"
#include "sim/base/error.hpp"
#include "sim/config/stack_calibration.hpp"
#include "sim/serving/efficiency_knobs.hpp"
#include "sim/serving/op_cost_model.hpp"
#include "sim/serving/roofline_cost_model.hpp"
#include "sim/serving/serving_metrics.hpp"
#include "workloads/model_config.hpp"
#include "workloads/request_sampling.hpp"

namespace scoville::engine {

struct ServingHardware {
  models::ChipParams chip;
  std::string system_name;  // the system file's name, or "<chip> switch"
  std::optional<models::Topology> network;
  serving::SoftwareOverheads software;
  std::string software_name;  // empty: none
  std::string software_file;  // the stack's file (arch/software); empty: none
  // The system file's power section (all-in figures) and its chip count; absent: none given.
  std::optional<models::SystemPowerParams> system_power;
  int64_t system_chips = 0;
  // The system file's calibration overlay (sim/config/calibration_overlay.hpp), applied by the
  // roofline; identity knobs and an empty description when none applies.
  serving::EfficiencyKnobs efficiency;
  std::string calibration;  // e.g. "h200-hgx8.calibration.yaml"; empty: none applied
  // The stack's calibration (sim/config/stack_calibration.hpp) when one applies: its software
  // knobs are in `efficiency`, replacing the system overlay's overheads.
  std::optional<config::StackCalibration> stack_calibration;
  // The op-cost model behind the iteration pricer (sim/serving/op_cost_model.hpp); null: the
  // roofline's closed form. Shared by every engine of the process (one op table per chip).
  std::shared_ptr<const serving::OpCostModel> op_cost;
  // The system file's host (link and memory); absent for a chip on a switch or a system file
  // without one. remote_pool KV lives there.
  std::optional<models::HostParams> host;
  // Where the attention KV lives (models/kv/kv_placement.hpp; `--kv-placement`), at every
  // fidelity; remote_pool also moves the pools' KV capacity to the host's memory.
  std::string kv_placement = "local";
};

// The model as `hw`'s stack samples it: requests that ask for top-p (`sampling`) on a stack that
// sorts the vocabulary for it (config::SoftwareProfile::top_p_sorts_vocabulary) sort every
// sequence's logits (workloads::Sampler::kFullSort); otherwise one pass, as greedy requests.
workloads::ModelConfig sampled_model(const workloads::ModelConfig& model, const ServingHardware& hw,
                                     workloads::RequestSampling sampling);

// Checks `name` against the KV placements the serving layer prices (every registered one) and
// that remote_pool has a host; sets hw.kv_placement. InputError naming the choices otherwise.
void set_kv_placement(ServingHardware& hw, const std::string& name);

// The fidelities `inferencex` and `serve` price iterations at (docs/modelling.md).
enum class ServingFidelity { kRoofline, kOpTable, kCycle };
// The fidelities by name, from the registry that also parses them ("cycle", "op-table",
// "roofline"): the op-cost model behind the pricing (docs/modelling.md).
std::vector<std::string> serving_fidelity_names();
// One of serving_fidelity_names(); UsageError naming the choices otherwise.
ServingFidelity parse_serving_fidelity(const std::string& text);
std::string to_string(ServingFidelity fidelity);

// The overlay fidelity of a serving fidelity: "roofline" or "op-table"; the cycle level has no
// overlays (empty).
std::string overlay_fidelity(ServingFidelity fidelity);

// Puts the simulated op table of hw's chip behind its pricing (the op-table fidelity): builds the
// chip model (before the process simulates anything). The knobs stay: resolve_hardware chose
// the op-table overlay. `persistent_cache`: read and write the on-disk op cache.
void use_op_table(ServingHardware& hw, bool persistent_cache);
// The op table's hits and misses, one line for stderr (empty without an op table).
std::string op_table_report(const ServingHardware& hw);

// The provenance line of a run's calibration: the overlay applied, or "none (...)".
std::string calibration_label(const ServingHardware& hw);

// The stack in effect, for headers and outputs: its name, or "none" (hardware time alone).
std::string software_label(const ServingHardware& hw);

// `system` empty: a single switch of `chips` chips built from the chip's ports ([ASSUMPTION]
// latencies, docs/serving.md). Otherwise a system file (network part) and `chip`, and, when
// `calibration` is true, the system file's calibration overlay for `fidelity` if it has one
// (config::find_overlay; none at the cycle level), then the stack's calibration for `fidelity`
// if the stack in effect has one (config::find_stack_calibration; whatever the chip: software
// time belongs to the stack), whose software knobs replace the overlay's overheads. `software`:
// config::kSystemSoftware (the system file's own stack; none on a switch), config::kNoSoftware, or
// a stack name or file.
ServingHardware resolve_hardware(const std::string& chip, const std::string& system, int64_t chips,
                                 const std::string& software, bool calibration = true,
                                 ServingFidelity fidelity = ServingFidelity::kRoofline);

// Puts hw.stack_calibration's software knobs into hw.efficiency and names it in hw.calibration
// (nothing without one).
void apply_stack_calibration(ServingHardware& hw);

// Replaces hw's efficiency knobs by those of the overlay `file` (its `inherits:` followed),
// whatever system or chip hw runs: `inferencex --calibration FILE`, e.g. to give a system
// without measurements the knobs fitted on another (docs/calibration.md). The label says so.
// An overlay fitted at another fidelity than `fidelity` is an InputError. The stack's
// calibration, when one applies, fills the software knobs the overlay leaves at zero; those the
// overlay sets itself stay (the label names them).
void apply_calibration_file(ServingHardware& hw, const std::string& file, ServingFidelity fidelity);

// "500 W" or "500W" -> a positive power; InputError at `flag` otherwise.
Power parse_power_cap(const std::string& text, const std::string& flag);

// Caps every chip of `hw` at `cap` (the chip's controller then holds it). InputError at
// (where, key) when the chip has no power_management section.
void apply_power_cap(ServingHardware& hw, const std::optional<Power>& cap,
                     const SourceLocation& where, const std::string& key);

// The all-in inputs (a system file's power section) of the metrics, when the system has one and
// the scenario gives no all-in power per chip of its own.
void set_power_inputs(const ServingHardware& hw, serving::MetricInputs& metrics);

}  // namespace scoville::engine
