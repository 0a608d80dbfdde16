// The MLPerf Inference LLM benchmarks a measurement row can name (workloads/measurements/
// mlperf-benchmarks.csv): per benchmark model its dataset's mean input and output tokens per
// sample, the replica a predicted point runs on and the p99 latency limits of its Server and
// Interactive scenarios; and what a row's notes say of its run (scenario, mean output tokens).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"
#include "workloads/requests/length_samples.hpp"

namespace scoville::validation {

// p99 limits a scenario's point must meet (MLPerf loadgen's ttft_latency / tpot_latency).
struct LatencyLimits {
  double ttft_ms = 0;
  double tpot_ms = 0;
};

struct MlperfBenchmark {
  std::string model;    // workloads/models name
  std::string dataset;  // as the data file names it
  double mean_input_tokens = 0;
  double mean_output_tokens = 0;
  int64_t replica_chips = 1;
  LatencyLimits server, interactive;
  // Draft tokens per step of the speculative decoding the Interactive scenario's rules set for
  // the model (optional column interactive_mtp_depth; 0: none).
  int64_t interactive_mtp_depth = 0;
  // The dataset's per-sample (input, reference output) token counts (optional column
  // lengths_file, relative to the benchmarks file); null: none, requests are drawn uniformly
  // around the means. Their mean input agrees with mean_input_tokens within 1 %.
  std::shared_ptr<const workloads::LengthSamples> lengths;
  SourceLocation where;  // its line in the data file
};

// Reads one benchmarks file ('#' lines are comments). InputError naming file, line, column and
// what was expected on a missing column, a bad number or a model listed twice.
std::vector<MlperfBenchmark> read_mlperf_benchmarks(const std::string& path);
std::vector<MlperfBenchmark> parse_mlperf_benchmarks(const std::string& text,
                                                     const std::string& path);
// workloads/measurements/mlperf-benchmarks.csv of the data root.
std::vector<MlperfBenchmark> shipped_mlperf_benchmarks(const config::DataPaths& paths);
// The benchmark of a workloads/models name; null when none.
const MlperfBenchmark* find_benchmark(const std::vector<MlperfBenchmark>& benchmarks,
                                      const std::string& model);

// The scenarios a row is predicted in: an MLPerf scenario, or InferenceX's best-throughput
// point of a row without its concurrency. kPoint: a closed-loop point at the row's concurrency.
// kAtInteractivity: a throughput published at a stated interactivity ("... at 90 tok/s/user"):
// the InferenceX curve read at that interactivity (concurrency_sweep.hpp).
enum class RowScenario {
  kPoint,
  kOffline,
  kServer,
  kInteractive,
  kBestThroughput,
  kAtInteractivity
};
std::string to_string(RowScenario scenario);

// The MLPerf scenario of a row's notes ("scenario Offline", "... scenario Server; ..."), any
// case; nullopt when they name none.
std::optional<RowScenario> notes_scenario(const std::string& notes);
// "mean output tokens/sample N" in the notes; nullopt when absent.
std::optional<double> notes_mean_output(const std::string& notes);
// "at N tok/s/user" in the notes (a throughput published at that interactivity); nullopt when
// absent.
std::optional<double> notes_at_interactivity(const std::string& notes);

}  // namespace scoville::validation
