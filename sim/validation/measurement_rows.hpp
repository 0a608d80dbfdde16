// What `scoville validate` and `scoville calibrate` share: reading the published measurements
// (../shared/validation/measurements.csv), deciding per row what to simulate (or why it cannot
// be), and simulating a row with given efficiency knobs.
//
// The replica a row describes: InferenceX reports throughput per GPU, and for GPT-OSS and Llama
// its "concurrency" turns out to be per replica of one GPU, not per 8-GPU system: by Little's
// law, concurrency x tokens per request / E2E latency / throughput per chip gives the chips the
// concurrency is spread over, and that is 1 (not 8) on those rows while it is 8 on the DeepSeek
// rows. So the replica is read from each row's own medians (rounded to 1, 2, 4 or 8 chips); a row
// without TTFT and TPOT takes the replica size its model's other rows show.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/engine/serving_engines.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/serving/efficiency_knobs.hpp"
#include "sim/serving/serving_point.hpp"
#include "sim/validation/deployment_recipes.hpp"
#include "sim/validation/inferencex_searches.hpp"
#include "sim/validation/mlperf_benchmarks.hpp"
#include "sim/validation/mlperf_replicas.hpp"

namespace scoville::validation {

struct MeasurementRow {
  std::map<std::string, std::string> fields;
  int line = 0;
  std::string file;  // the measurements file it was read from
  const std::string& at(const std::string& key) const;
};

// Throws InputError naming the file (and the missing column) when it cannot be read.
std::vector<MeasurementRow> read_measurements(const std::string& path);
// The published measurements the repository ships (workloads/measurements/published/
// measurements.csv of the data root): `validate` and `calibrate` read it unless told otherwise.
std::string shipped_measurements(const config::DataPaths& paths);

// One CSV record's fields (RFC 4180 quoting, one line per record).
std::vector<std::string> split_csv(const std::string& line);

// A row as Scoville predicts it.
struct RowPlan {
  std::string id, system, model_published, metric, precision;
  std::string framework;    // as published: which serving stack ran it (framework_stacks.hpp)
  std::string chip;         // arch/chips name ("" when out of scope)
  std::string model;        // workloads/models name
  std::string system_file;  // arch/systems name whose overlay applies (e.g. h200-hgx8)
  std::string precision_override;  // "class=format,..." from the row's precision ("" none)
  int64_t isl = 0, osl = 0, concurrency = 0;
  int64_t replica_chips = 0;  // chips of the simulated replica (TP = EP = this), or of both pools
  // An MLPerf row whose run's instance size is published (mlperf_replicas.hpp): the sweep keeps
  // replica_chips instead of trying sizes.
  bool replica_published = false;
  // An InferenceX best-throughput row whose configuration's search is known
  // (inferencex_searches.hpp): the replicas it ran and the most clients each was given; empty:
  // replica_chips up to kMaxSweepConcurrency.
  std::vector<SearchedReplica> searched;
  // Disaggregated serving with the prefill/decode split the row's notes publish ("prefill P GPU
  // TPP, decode D GPU EPe"): the pools' chips and the decode EP degree; all 0 for one co-located
  // replica.
  int64_t prefill_chips = 0, decode_chips = 0, decode_ep = 0;
  // The decode pool is one tensor-parallel worker over its chips ("decode D GPU TPD EPe":
  // attention over all D chips, experts over e of them) rather than D / e EP instances.
  bool decode_tensor_parallel = false;
  // Where the decode pool starts: on the next whole node of a multi-node system (0: right
  // after the prefill pool).
  int64_t decode_first_chip = 0;
  bool mtp = false;       // the notes say MTP was on (the recipe's or kRowMtpDepth drafts)
  int64_t mtp_depth = 0;  // drafts per step where a benchmark's rules set them (0: as above)
  // How the split row was launched (workloads/deployments): its pools' parallelism and batch
  // limits and its MTP depth replace the assumptions below. Absent: the assumptions hold.
  std::optional<DeploymentRecipe> recipe;
  double implied_chips = 0;  // Little's law on the row's medians (0: no medians)
  // How the row is predicted: one closed-loop point at its concurrency, or a concurrency sweep
  // keeping its best point (concurrency_sweep.hpp): an MLPerf scenario (lengths whose means are
  // its dataset's, Server and Interactive within `limits`) or an InferenceX best-throughput
  // point without its concurrency (concurrency 0 until swept).
  RowScenario scenario = RowScenario::kPoint;
  std::optional<LatencyLimits> limits;
  // Requests per second of a Poisson load (an MLPerf Server or Interactive point as LoadGen
  // sends it), `concurrency` then being the batch limit; 0: a closed loop of `concurrency`
  // clients.
  double arrival_rate = 0;
  // kAtInteractivity: the interactivity (tok/s/user) the row's throughput was published at. It
  // is a condition of the row, not a prediction to check, so published_intvty is empty then.
  std::optional<double> target_intvty;
  double range_ratio = 0.8;  // lengths uniform in [range_ratio, 1] x isl / osl
  // An MLPerf row whose benchmark has the dataset's per-sample lengths: each request takes one
  // sample (its output scaled to the run's mean output); isl / osl are then their means, and
  // range_ratio is not used. Null: uniform lengths as above.
  std::shared_ptr<const workloads::LengthSamples> length_samples;
  int64_t row_chips = 0;  // the row's chips column (0: not published)
  // The published throughput (metric); absent for a row predicted on its interactivity alone:
  // one that publishes none, or one whose throughput counts what is not simulated
  // (throughput_not_compared says what).
  std::optional<double> published;
  std::string throughput_not_compared;
  std::optional<double> published_intvty;
  int line = 0;
  std::string skipped;  // non-empty: why it is not predicted
};

// Plans every row (two passes: rows without medians borrow their model's replica size). A row
// with a published split of EP decode instances takes the recipe of its system and concurrency
// when there is one (a tensor-parallel decode worker takes none); the first form reads the
// shipped recipes (workloads/deployments/*.csv).
std::vector<RowPlan> plan_rows(const std::vector<MeasurementRow>& rows);
std::vector<RowPlan> plan_rows(const std::vector<MeasurementRow>& rows,
                               const std::vector<DeploymentRecipe>& recipes);
// With the MLPerf benchmarks and the runs' published replicas given (the forms above read
// workloads/measurements/mlperf-benchmarks.csv and mlperf-replicas.csv): an MLPerf row (its
// notes name a scenario, its metric is output tokens) of a listed model is planned as a sweep of
// its scenario, on its run's published replica when `replicas` has its results folder; an
// InferenceX best-throughput row with lines in `searches` (the forms above read
// workloads/measurements/inferencex-searches.csv) is swept over that search. A line naming a row
// that is planned otherwise (it publishes its concurrency, or is read at an interactivity) is
// refused with its line.
std::vector<RowPlan> plan_rows(const std::vector<MeasurementRow>& rows,
                               const std::vector<DeploymentRecipe>& recipes,
                               const std::vector<MlperfBenchmark>& benchmarks,
                               const std::vector<PublishedReplica>& replicas = {},
                               const std::vector<InferencexSearch>& searches = {});

// MTP as the published rows ran it is not given: [ASSUMPTION] TensorRT-LLM's DeepSeek R1 MTP
// recipes draft 3 positions; each accepted with probability 0.7 (a mean of 2.5 tokens per
// step), the setting tools/jalapeno-study gives the GPUs.
inline constexpr int64_t kRowMtpDepth = 3;
inline constexpr double kRowMtpAcceptance = 0.7;

// The row's model with its precision override applied (and its checkpoint's MTP module when
// the row ran MTP), and the pools it simulates: one co-located replica (TP = EP =
// replica_chips), or the published prefill and decode pools (docs/calibration.md, "Rows with
// a published prefill/decode split"). `where` locates errors.
workloads::ModelConfig row_model(const RowPlan& plan, const config::DataPaths& paths);
workloads::MappingConfig row_mapping(const RowPlan& plan, const workloads::ModelConfig& model,
                                     SourceLocation where);
// The scheduler of the row: a batch as large as its concurrency, MTP when it ran MTP (the
// recipe's depth, else kRowMtpDepth).
serving::SchedulerConfig row_scheduler(const RowPlan& plan);
// The row's serving engine: its mapping and scheduler, and with a recipe the recipe's batch
// limits per scheduler on each pool and decode slots held from prefill on. The one way
// validate, calibrate and the probe build a row.
engine::ServingEngine make_row_engine(const RowPlan& plan, const engine::ServingHardware& hw,
                                      const workloads::ModelConfig& model);

struct RowPrediction {
  double throughput = 0;  // in the row's metric
  double intvty = 0;
  double p99_ttft_ms = 0, p99_tpot_ms = 0;
};

// One planned row, its engine built once; run() re-prices it with other knobs (the roofline's op
// cache is kept between runs, so a fit pays the mapping work once).
class RowSimulator {
 public:
  RowSimulator(const RowPlan& plan, const engine::ServingHardware& hw, int64_t prompts_per_client);
  ~RowSimulator();
  RowSimulator(RowSimulator&&) noexcept;
  RowPrediction run(const serving::EfficiencyKnobs& knobs);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The signed error in percent.
double signed_error(double predicted, double published);

// Mean absolute percentage error of the rows' throughput and (where published) interactivity
// terms together: what is reported.
double combined_mape(const std::vector<RowPlan>& plans, const std::vector<RowPrediction>& pred);
// Mean squared log ratio ln(predicted / published) over the same terms: what the fit minimises.
// Smooth where MAPE has a kink at every row's zero error, so the search follows the narrow
// valleys along which knobs trade off; symmetric in over- and under-prediction.
double combined_log_error(const std::vector<RowPlan>& plans,
                          const std::vector<RowPrediction>& pred);

}  // namespace scoville::validation
