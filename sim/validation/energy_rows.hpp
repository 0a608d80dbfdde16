// Measured energy rows (workloads/measurements/energy/*.csv, columns in
// workloads/measurements/energy/README.md) and their prediction: `scoville validate --energy
// FILE.csv`. A row is one published serving configuration (GPU, GPU count, TP/EP, model, batch
// limit, lengths) with its measured energy per output token and average power, and what that power
// covers (the GPU boards, a node, the wall). Each row is simulated as it ran: one replica of
// `chips` chips on the row's system file, a closed loop of max_num_seqs clients (the benchmarks
// keep the batch full), at the default fidelity with the system's calibration overlay (fitted on
// throughput rows, never on these), and the simulated energy over the same span as the measurement
// covers.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "sim/engine/serving_hardware.hpp"
#include "workloads/request_sampling.hpp"
#include "workloads/requests/length_histogram.hpp"

namespace scoville::validation {

// What a row's measured power covers; only "gpu" (the boards' sensors, as NVML reports them) is
// predicted: node and wall rows need the host's measured draw, which no system file has yet.
enum class EnergyCoverage { kGpu, kNode, kWall };

struct EnergyRow {
  std::string id, source, gpu, system_file, model, precision_override, task;
  // The serving stack as measured (optional column `framework`): framework-stacks.csv maps it
  // to an arch/software stack, as for the throughput rows; empty: the system's own stack.
  std::string framework;
  // Whether the requests asked for top-p sampling (optional column `sampling`: greedy or top-p;
  // default greedy): a stack that sorts the vocabulary for top-p then prices that sort.
  workloads::RequestSampling sampling = workloads::RequestSampling::kGreedy;
  // The share of each prompt found in vLLM's prefix cache (optional column `prefix_hit_rate`,
  // [0, 1), default 0): a benchmark whose requests repeat earlier prompts as their prefix (one
  // request per conversation turn) prefills only the rest.
  double prefix_hit_rate = 0;
  EnergyCoverage covers = EnergyCoverage::kGpu;
  int64_t chips = 1, tp = 1, ep = 1, max_num_seqs = 1;
  int64_t isl = 1;                // nominal input tokens
  double avg_output_len = 0;      // measured mean output tokens per request
  double output_tok_s = 0;        // measured, whole replica
  double avg_power_w = 0;         // measured, whole replica (all its chips)
  double energy_per_token_j = 0;  // measured, per output token
  // Measured median inter-token latency, ms (optional column `median_itl_ms`; 0: not given):
  // the benchmark client's gaps between tokens over the whole run, mostly decode-only steps.
  double median_itl_ms = 0;
  // The benchmark's requests in all (optional column `num_requests`; 0: not given, then
  // `prompts_per_client` x max_num_seqs are simulated): its steady-state window ends at the
  // (N - B - 1)-th finish, so N sets which part of the run it measures.
  int64_t num_requests = 0;
  // The measured output-length histogram (optional column `output_length_bins`, 'LO-HI:COUNT'
  // bins separated by spaces; empty: lengths uniform in [0.8, 1] x nominal): the requests'
  // outputs are drawn from it (workloads/requests/length_histogram.hpp).
  std::vector<workloads::LengthBin> output_length_bins;
  std::string file;
  int line = 0;
};

// Reads every row; throws InputError naming the file, line and column of the first bad field
// (a missing column, an empty or non-numeric value, a count outside its range, an unknown GPU,
// coverage or parallelism that does not multiply to the chip count).
std::vector<EnergyRow> read_energy_rows(const std::string& path);
// The same from the file's text; `path` names it in errors.
std::vector<EnergyRow> parse_energy_rows(const std::string& text, const std::string& path);

// The most requests a row may ask to simulate (`num_requests`): 50 times the largest published
// run (2,048), so that a typo cannot start a run of days.
inline constexpr int64_t kMaxEnergyRowRequests = 100000;

struct EnergyPrediction {
  double energy_per_token_j = 0;  // simulated energy / output tokens, GPU boards
  double avg_power_w = 0;         // whole replica
  double output_tok_s = 0;        // whole replica
  // A diagnostic that separates the power model from the throughput model (not a prediction:
  // it takes the measured throughput): the simulated energy per token, with the replica's GPUs
  // waiting at their static power (clocks up, no kernel: the serving stack's host time) for the
  // difference between the measured and the simulated time per output token (energy removed
  // at that power where the simulation is the slower one). docs/validation.md, "Energy".
  double energy_per_token_at_measured_time_j = 0;
  // That difference per step of a full batch (max_num_seqs tokens), ms: the host time per
  // step the simulation is missing (negative: the simulation is slower).
  double missing_step_time_ms = 0;
  // Of energy_per_token_j, the `hbm` component: the HBM devices and the chip's HBM PHY (the
  // energy table's hbm + hbm_phy pJ/bit x bytes): the energy per token at another figure for
  // both is this times (figure / table's figure) more.
  double hbm_energy_per_token_j = 0;
  // The simulated median inter-token latency, ms, over the whole run as the benchmark's client
  // pools every request's gaps: a check of the decode step apart from the prefill it carries.
  double median_itl_ms = 0;
  // Whether the three figures above cover the benchmark's steady-state window (the span the
  // ML.ENERGY measurement covers: serving/steady_state_window.hpp) rather than the whole run
  // (a run too short to have one). The HBM share is the whole run's.
  bool steady_state = false;
};

// The diagnostic above from a prediction, the row's measured throughput and the chips' static
// power (all the replica's chips together).
void add_measured_time_diagnostic(EnergyPrediction& p, const EnergyRow& row,
                                  double replica_static_power_w);

// The closed-loop lengths of a row: the simulator draws each request's lengths uniformly in
// [kEnergyRangeRatio, 1] x nominal, so the nominal output is the measured mean / the draw's mean.
inline constexpr double kEnergyRangeRatio = 0.8;
int64_t nominal_output_tokens(double mean_output_tokens);

// One row simulated on `hw` (its chip, system, software and overlay), `prompts_per_client`
// requests per client.
EnergyPrediction predict_energy_row(const EnergyRow& row, const engine::ServingHardware& hw,
                                    int64_t prompts_per_client);

struct EnergyOutcome {
  EnergyRow row;
  EnergyPrediction predicted;
  std::string stack;    // the arch/software stack it was predicted with ("" none)
  std::string skipped;  // non-empty: why it was not predicted
};

// The rows' table (or JSON) with signed errors and the mean absolute percentage error of energy
// per token and of power, overall and per GPU and per batch class.
void print_energy_outcomes(std::ostream& out, const std::string& path,
                           const std::vector<EnergyOutcome>& outcomes, const std::string& fidelity,
                           bool json);

// `scoville validate --energy FILE.csv`: reads the rows, builds each system once (its chip, the
// software profile, its overlay for `fidelity` unless `calibration` is off), predicts every GPU
// row and prints the outcomes. Rows whose power covers a node or the wall are listed as skipped.
int validate_energy(std::ostream& out, const std::string& path, const std::string& software,
                    bool calibration, engine::ServingFidelity fidelity, bool op_cache,
                    int64_t prompts_per_client, bool json);

}  // namespace scoville::validation
