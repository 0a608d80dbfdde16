// Serving scenario YAML (workloads/scenarios/*.yaml) -> ServingStudySpec: what `scoville serve`
// and `scoville inferencex` need to build a serving run. Schema (docs/serving.md, "Scenario
// files"):
//   scenario:
//     name: text
//     system: {chip: NAME|FILE, chips: N, network: NAME|FILE (optional), software: NAME (opt.)}
//     model: NAME|FILE
//     mapping: {default: {chips: 8, tp: 8}}        # or prefill: {...} and decode: {...}
//     scheduler: {max_num_seqs, max_num_batched_tokens, chunked_prefill, kv_block_tokens,
//                 policy, handoff}   (policy: fcfs | decode-first; handoff, disaggregated:
//                 queue-at-decode | reserve-decode-slot; sim/serving/scheduling_policy.hpp)
//     mtp: {depth, acceptance, mode: expected|sampled}
//     requests: {pattern: closed_loop|poisson|gamma|trace, isl, osl, range_ratio, concurrency,
//                num_prompts, rate, burstiness, max_concurrency, trace: FILE}
//     slo: {ttft, tpot, e2el}
//     power: {tdp, all_in, pue}
//     price_per_chip_hour: USD
//     seed: N
// Every problem of a file is reported at once, as one InputError with file:line:col and key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/serving/serving_config.hpp"
#include "workloads/mapping/pool_mapping.hpp"

namespace scoville::config {

struct ServingStudySpec {
  std::string name;
  std::string file;      // the scenario file, or "<command line>"
  std::string chip;      // name or path
  int64_t chips = 0;     // 0: the sum of the pools' chips
  std::string network;   // system file name or path; empty: a switch built from the chip's ports
  std::string software;  // software profile name or path; empty: none
  std::string model;     // name or path
  workloads::MappingConfig mapping;
  serving::SchedulerConfig scheduler;
  workloads::RequestPattern requests;
  serving::MetricInputs metrics;  // tdp_per_chip left empty: the chip's TDP unless power.tdp
  uint64_t seed = 1;
  // power.cap: every chip's power cap (the chip needs power_management; docs/power.md).
  std::optional<Power> power_cap;
  SourceLocation power_cap_at;
};

ServingStudySpec load_scenario(const std::string& path);
ServingStudySpec load_scenario_string(const std::string& yaml, const std::string& display_name);

}  // namespace scoville::config
