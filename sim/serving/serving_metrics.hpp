// Aggregated serving metrics, named as vLLM's benchmark_serving and InferenceX name them
// (docs/serving.md lists each definition and its source). Latencies in ms, throughputs in tok/s
// or req/s over the benchmark window: from the first request sent to the last request finished,
// as vLLM's `benchmark_duration` spans its whole request loop.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/serving/named_metric.hpp"
#include "sim/serving/percentile.hpp"
#include "sim/serving/request_record.hpp"
#include "sim/serving/scheduler_stats.hpp"
#include "sim/serving/serving_config.hpp"

namespace scoville::serving {

struct ServingMetrics {
  int64_t completed = 0;
  double duration_s = 0.0;
  int64_t total_input_tokens = 0;
  int64_t total_output_tokens = 0;
  double request_throughput = 0.0;      // req/s
  double input_throughput = 0.0;        // tok/s
  double output_throughput = 0.0;       // tok/s
  double total_token_throughput = 0.0;  // (input + output) tok/s

  Distribution ttft_ms;
  Distribution tpot_ms;  // requests with more than one output token
  Distribution itl_ms;   // every gap of every request, pooled
  Distribution e2el_ms;

  std::optional<double> request_goodput;  // good req/s (vLLM)
  std::optional<double> output_goodput;   // output tok/s of good requests (Scoville's addition)

  double tput_per_chip = 0.0;         // total_token_throughput / all chips
  double output_tput_per_chip = 0.0;  // output_throughput / decode chips
  double input_tput_per_chip = 0.0;   // input_throughput / prefill chips
  double intvty = 0.0;                // 1000 / median TPOT in ms: tok/s per user
  double median_e2e_intvty = 0.0;     // median of output_tokens / E2EL (s): tok/s per user

  double total_energy_j = 0.0;                    // iterations (wasted work included) + idle
  double avg_power_per_chip_w = 0.0;              // total energy / window / all chips
  double joules_per_output_token = 0.0;           // total energy / output tokens delivered
  std::optional<double> tput_per_kw_tdp;          // tput_per_chip x 1000 / TDP per chip (W)
  double tput_per_kw_sim = 0.0;                   // tput_per_chip x 1000 / avg_power_per_chip_w
  std::optional<double> tput_per_mw_all_in;       // tput_per_chip x 1000 / all-in kW per chip
  std::optional<double> joules_per_token_all_in;  // all-in W per chip / tput_per_chip
  std::optional<double> cost_per_mtok;            // $/chip-hr / (3600 x tput_per_chip / 1e6)
  // All-in from a system file's power section (docs/power.md): provisioned all-in W per chip
  // (TDP-based, InferenceX's), and all-in J per token with the simulated average chip power.
  std::optional<double> all_in_power_per_chip_w;
  std::optional<double> joules_per_token_all_in_sim;

  // Power (docs/power.md, "Serving"). Energy splits: busy iterations + idle gaps = total.
  double busy_energy_j = 0.0;
  double idle_energy_j = 0.0;
  double idle_share = 0.0;             // idle chip-time / all chip-time in the window
  double busy_power_per_chip_w = 0.0;  // busy energy / busy chip-time
  double peak_power_per_chip_w = 0.0;  // highest of any one iteration
  std::optional<double> power_cap_w;   // when a pool is power-managed (the smallest cap)
  double throttled_share = 0.0;        // busy chip-time below the nominal clock / busy chip-time
  std::optional<double> effective_clock_hz;  // busy-time-weighted clock of managed pools
  // MTP: every output token is an accepted one; rejected drafts cost energy, count no tokens.
  double joules_per_accepted_token = 0.0;  // total energy / accepted (output) tokens
  double rejected_draft_energy_j = 0.0;
  int64_t rejected_draft_positions = 0;

  int64_t preemptions = 0;
  int64_t wasted_tokens = 0;

  // (name, value, unit) in a fixed order, for JSON, CSV and HDF5 writers.
  std::vector<NamedMetric> named() const;
};

ServingMetrics compute_metrics(const std::vector<RequestRecord>& records,
                               const SchedulerStats& stats, const ServingSystem& system,
                               const MetricInputs& inputs);

}  // namespace scoville::serving
