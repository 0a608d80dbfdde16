// The options of `scoville inferencex` and their parsing (the command is
// sim/cli/inferencex_command.cpp; the sweep itself is sim/engine/inferencex_sweep.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/cli/parsed_options.hpp"
#include "sim/cli/serving_trace_flags.hpp"
#include "workloads/request_sampling.hpp"

namespace scoville::cli {

struct InferencexOptions {
  std::string system, chip, model;
  int64_t chips = 0;
  int64_t isl = 0, osl = 0;
  std::vector<int64_t> concurrency;
  int64_t tp = 0, ep = 1, attn_dp = 1;
  std::string mapping_file;
  bool search = false;
  int64_t prompts_per_client = 10;
  double range_ratio = 0.8;
  int64_t max_num_seqs = 0;
  int64_t max_batched_tokens = 8192;
  std::string policy = "fcfs";              // serving::SchedulerConfig::policy
  std::string handoff = "queue-at-decode";  // serving::SchedulerConfig::handoff
  int64_t mtp_depth = 0;
  std::string draft_model;  // draft-model speculative decoding; empty: MTP (or none)
  double mtp_acceptance = 0.0;
  std::string software;
  bool calibration = true;       // apply the system file's calibration overlay, if any
  std::string calibration_file;  // --calibration: this overlay instead
  std::string fidelity = "op-table";
  bool op_cache = true;
  std::optional<std::string> power_cap;
  std::string kv_placement = "local";
  // --sampling: how the requests ask their tokens drawn (a stack may sort the vocabulary for top-p)
  workloads::RequestSampling sampling = workloads::RequestSampling::kGreedy;
  uint64_t seed = 1;
  bool json = false, quiet = false;
  std::string output;
  ServingTraceArgs trace;
  std::optional<int64_t> trace_point;
};

// The options from the command's arguments; UsageError for a flag or combination it refuses.
InferencexOptions parse_inferencex_options(const std::vector<std::string>& args);

// `--sampling greedy|top-p` (default greedy), as inferencex and step take it; UsageError naming the
// choices otherwise.
workloads::RequestSampling parse_sampling_flag(const ParsedOptions& p);

}  // namespace scoville::cli
