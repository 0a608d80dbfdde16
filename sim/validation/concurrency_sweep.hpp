// Rows published as the best point of a benchmark rather than at one concurrency: an MLPerf
// Offline row (the highest output throughput), an MLPerf Server or Interactive row (the highest
// whose p99 TTFT and TPOT meet the scenario's limits) and InferenceX's "best-throughput config per
// GPU" without its concurrency. Each is predicted as InferenceX and MLPerf submitters find
// theirs: by sweeping the closed-loop concurrency of one replica and keeping the best point
// (docs/calibration.md, "Reading the measurement rows": MLPerf rows).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/serving_hardware.hpp"
#include "sim/validation/measurement_rows.hpp"
#include "sim/validation/mlperf_benchmarks.hpp"

namespace scoville::validation {

// [ASSUMPTION] The largest concurrency per replica a sweep tries: above InferenceX's published
// points (at most 16,130 over whole multi-node deployments, 1,024 per 8-GPU node) and the
// batch sizes TensorRT-LLM and vLLM run (max_num_seqs 256-2048).
inline constexpr int64_t kMaxSweepConcurrency = 2048;
// A point must beat the best throughput so far by this fraction to count as still rising; two
// points in a row that do not end the sweep (the curve has flattened: KV or compute bound).
inline constexpr double kPlateauGain = 0.01;
// [ASSUMPTION] The weights may take at most this share of a replica's HBM; a larger share
// leaves too little KV cache for a throughput point, and submissions spread such models over
// more chips (Llama 2 70B FP8 on one 80 GB H100 would leave 10 GB).
inline constexpr double kMaxWeightShareOfHbm = 0.7;

struct SweptPoint {
  int64_t concurrency = 0;  // closed loop: the clients; Poisson: the batch limit (max_num_seqs)
  int64_t replica_chips = 0;
  double rate = 0;        // Poisson arrivals (requests/s per replica); 0: a closed loop
  double throughput = 0;  // in the row's metric
  double intvty = 0;
  double p99_ttft_ms = 0;
  double p99_tpot_ms = 0;
};

// The best of `points`: the highest throughput, among those whose p99 TTFT and TPOT are within
// `limits` when there are limits. nullopt when no point qualifies.
std::optional<size_t> choose_point(const std::vector<SweptPoint>& points,
                                   const std::optional<LatencyLimits>& limits);

struct SweepOutcome {
  std::vector<SweptPoint> points;
  std::optional<size_t> best;
  std::string why_not;  // when no best: the reason
};

// Runs `run` at concurrencies 1, 2, 4, ... up to max_concurrency. Stops after two successive
// points that do not raise the best throughput by kPlateauGain, after two successive points over
// the TPOT limit (TPOT only grows with the batch), or at a point `run` cannot price (it throws
// InputError: the first point's error is the reason when no point ran).
SweepOutcome sweep_concurrency(const std::function<SweptPoint(int64_t)>& run,
                               const std::optional<LatencyLimits>& limits, int64_t max_concurrency);

// Rows published as throughput at a stated interactivity (RowScenario::kAtInteractivity, the
// InferenceMAX article's "tok/s per MW at 90 tok/s/user"): the highest throughput the curve
// reaches while every user still gets `target` tok/s. Between the last swept point at or above
// the target and the first below it, throughput is interpolated in log-log space at the target
// (the frontier between two doublings of concurrency); a swept point at or above the target with
// more throughput wins. nullopt (with the reason in why_not) when even the first point is slower
// than the target. The result's concurrency is the last point at or above the target.
std::optional<SweptPoint> point_at_interactivity(const std::vector<SweptPoint>& points,
                                                 double target, std::string* why_not);

// Runs `run` at concurrencies 1, 2, 4, ... up to max_concurrency until a point's interactivity
// falls below `target` (the curve is bracketed) or the throughput flattens (two points without
// kPlateauGain), or a point cannot be priced, as sweep_concurrency does. `best` is unset: the
// point is point_at_interactivity's.
SweepOutcome sweep_to_interactivity(const std::function<SweptPoint(int64_t)>& run, double target,
                                    int64_t max_concurrency);

// MLPerf's Server and Interactive scenarios: LoadGen sends queries as a Poisson process at a
// target rate, and the result is the highest rate whose p99 TTFT and TPOT meet the scenario's
// limits ([SPEC] mlcommons/inference loadgen, "Server" scenario; docs/calibration.md, "Reading
// the measurement rows"). A closed loop at the same throughput never queues more requests
// than its clients, so its TTFT tail is far shorter than a Poisson load's.
// Bisection steps of the rate search after the highest rate (resolution max_rate / 2^steps).
inline constexpr int kRateSearchSteps = 6;

struct RateSearch {
  std::vector<SweptPoint> points;  // in the order run
  std::optional<size_t> best;      // the highest rate within the limits
  std::string why_not;             // when no best: the reason
};

// Searches the Poisson rate in (0, max_rate]: `max_rate` first, then kRateSearchSteps
// bisection steps between the highest rate within `limits` and the lowest beyond them. A rate
// `run` cannot price (InputError) counts as beyond the limits.
RateSearch search_poisson_rate(const std::function<SweptPoint(double)>& run, double max_rate,
                               const LatencyLimits& limits);

// [ASSUMPTION] The largest replica an MLPerf row's sweep tries: one 8-GPU node's tensor
// parallel group (MLPerf submissions on NVL72 racks also run 4- or 8-GPU instances).
inline constexpr int64_t kMaxSweepReplicaChips = 8;

// The most clients a sweep gives a replica of `replica_chips`: the conc-end of InferenceX's
// search for the row (RowPlan::searched), else kMaxSweepConcurrency.
int64_t max_concurrency_on(const RowPlan& plan, int64_t replica_chips);

// The replica sizes a swept row tries: the replicas of InferenceX's search for a best-throughput
// row that has one (RowPlan::searched); its planned replica for InferenceX's best-throughput and
// at-interactivity rows and for an MLPerf row whose run publishes its replica; otherwise every
// power of two from the smallest whose HBM (`hbm_bytes` per chip) holds `weight_bytes` within
// kMaxWeightShareOfHbm up to kMaxSweepReplicaChips, the system's chips (`system_chips`, 0:
// unknown) and the row's.
std::vector<int64_t> swept_replicas(const RowPlan& plan, int64_t system_chips, double weight_bytes,
                                    double hbm_bytes);

// A row whose scenario is not RowScenario::kPoint, predicted: the plan as simulated (its
// replica and the chosen concurrency), the prediction at that concurrency and every point swept.
// An MLPerf row sweeps its replica too, as submitters choose their tensor parallelism: from the
// smallest that holds the weights (kMaxWeightShareOfHbm) up to kMaxSweepReplicaChips, the
// system's and the row's chips; InferenceX's best-throughput and at-interactivity rows, and
// MLPerf rows whose run publishes its replica (RowPlan::replica_published), keep their planned
// replica. A Server or Interactive row is then served as LoadGen serves it: Poisson
// arrivals on the closed loop's best replica, its batch limit the best point's concurrency, at
// the highest rate within the limits (search_poisson_rate, from the replica's highest
// closed-loop throughput down).
struct SweptRow {
  RowPlan plan;
  RowPrediction predicted;
  std::vector<SweptPoint> points;
};
// InputError ("no concurrency meets ...") when no point qualifies.
SweptRow predict_swept_row(const RowPlan& plan, const engine::ServingHardware& hw,
                           int64_t prompts_per_client);

}  // namespace scoville::validation
