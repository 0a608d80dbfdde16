// What `scoville inferencex` and `scoville serve` share: resolving the system (a chip name, or a
// system file for the network plus a chip), building the cost model (roofline, or the SystemC
// system engine for the cycle fidelity) and the serving system of a mapping, running a point, and
// writing points and requests as a table, JSON or HDF5 (/points, /requests).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "models/chip/chip_params.hpp"
#include "models/host/host_params.hpp"
#include "models/network/topology.hpp"
#include "models/power/system_power.hpp"
#include "sim/serving/roofline_cost_model.hpp"
#include "sim/serving/serving_run.hpp"
#include "workloads/mapping/pool_mapping.hpp"
#include "workloads/model_config.hpp"

namespace scoville::cli {

struct ServingHardware {
  models::ChipParams chip;
  std::string system_name;  // the system file's name, or "<chip> switch"
  std::optional<models::Topology> network;
  serving::SoftwareOverheads software;
  std::string software_name;  // empty: none
  // The system file's power section (all-in figures) and its chip count; absent: none given.
  std::optional<models::SystemPowerParams> system_power;
  int64_t system_chips = 0;
  // The system file's calibration overlay (sim/config/calibration_overlay.hpp), applied by the
  // roofline; identity knobs and an empty description when none applies.
  serving::EfficiencyKnobs efficiency;
  std::string calibration;  // e.g. "h200-hgx8.calibration.yaml"; empty: none applied
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

// Checks `name` against the KV placements the serving layer prices (every registered one) and
// that remote_pool has a host; sets hw.kv_placement. InputError naming the choices otherwise.
void set_kv_placement(ServingHardware& hw, const std::string& name);

// The fidelities `inferencex` and `serve` price iterations at (docs/modelling.md).
enum class ServingFidelity { kRoofline, kOpTable, kCycle };
// "roofline", "op-table" or "cycle"; UsageError naming the choices otherwise.
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

// `system` empty: a single switch of `chips` chips built from the chip's ports ([ASSUMPTION]
// latencies, docs/serving.md). Otherwise a system file (network part) and `chip`, and, when
// `calibration` is true, the system file's calibration overlay for `fidelity` if it has one
// (config::find_overlay; none at the cycle level).
ServingHardware resolve_hardware(const std::string& chip, const std::string& system, int64_t chips,
                                 const std::string& software, bool calibration = true,
                                 ServingFidelity fidelity = ServingFidelity::kRoofline);

// Replaces hw's efficiency knobs by those of the overlay `file` (its `inherits:` followed),
// whatever system or chip hw runs: `inferencex --calibration FILE`, e.g. to give a system
// without measurements the knobs fitted on another (docs/calibration.md). The label says so.
// An overlay fitted at another fidelity than `fidelity` is an InputError.
void apply_calibration_file(ServingHardware& hw, const std::string& file, ServingFidelity fidelity);

// The cost model and the ServingSystem pools for a mapping (one pool: co-located; prefill and
// decode: disaggregated, KV handed over the network). Throws InputError when infeasible.
struct ServingEngine {
  std::unique_ptr<serving::IterationCostModel> cost;
  serving::ServingSystem system;
};
ServingEngine make_engine(const ServingHardware& hw, const workloads::ModelConfig& model,
                          const workloads::MappingConfig& mapping,
                          const serving::SchedulerConfig& scheduler);
// The cycle fidelity: one co-located pool priced by engine::SystemCostModel (the SystemC system
// engine with its iteration cache) on the system file `system`, with hw's chip and software
// overheads (those the roofline uses, so the two levels price the same stack). The KV capacity
// is the roofline's (serving::pool_kv_capacity_blocks). SystemC elaborates once per process:
// build one before any simulation and reuse it.
ServingEngine make_cycle_engine(const ServingHardware& hw, const std::string& system,
                                const workloads::ModelConfig& model,
                                const workloads::PoolMapping& pool,
                                const serving::SchedulerConfig& scheduler);

// One serving run, with what a closed-loop check needs from the records.
struct ServingPoint {
  std::string mapping;  // e.g. "tp8" or "tp4-ep4-attn_dp4"
  int64_t tp = 1, ep = 1, attn_dp = 1, chips = 1;
  int64_t concurrency = 0;  // closed loop: N; otherwise max_concurrency (0: none)
  serving::ServingResult result;
  int64_t max_in_flight = 0;    // most requests between send and finish at any time
  double mean_in_flight = 0.0;  // time average over the benchmark window
  double littles_law_n = 0.0;   // request_throughput x mean E2EL (s)
  bool pareto = false;
};

std::string mapping_label(const workloads::MappingConfig& mapping);
void fill_point_stats(ServingPoint& point);
// Marks the points not dominated in (tput_per_chip, intvty), InferenceX's rule.
void mark_pareto(std::vector<ServingPoint>& points);

void print_points_table(std::ostream& out, const std::vector<ServingPoint>& points);
void print_points_json(std::ostream& out, const std::string& header_fields,
                       const std::vector<ServingPoint>& points);
// /points (one row per point: identity columns and every metric) and /requests (one row per
// request, with its point index), written atomically.
void write_points_h5(const std::string& path, const std::vector<ServingPoint>& points, int argc,
                     const char* const* argv, uint64_t seed,
                     const std::vector<std::pair<std::string, std::string>>& attributes);

// A progress bar on stderr, only when stderr is a terminal and not quiet.
class Progress {
 public:
  Progress(int64_t total, bool quiet);
  void step(const std::string& label);
  ~Progress();

 private:
  int64_t total_;
  int64_t done_ = 0;
  bool on_ = false;
};

}  // namespace scoville::cli
