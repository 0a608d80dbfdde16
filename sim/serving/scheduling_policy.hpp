// The policies of the serving scheduler, each behind an interface and chosen by name from a
// registry that lists what exists and refuses an unknown name (docs/serving.md, "Scheduling
// policies"):
//   - a batching policy composes a pool's iteration from its running sequences: which of them are
//     served first when the token budget runs short;
//   - a hand-off policy decides, for a disaggregated system, when the prefill pool may start a
//     request relative to the decode pool's free slots.
// The continuous-batching loop (continuous_batching_scheduler.hpp) owns the queues, the KV blocks
// and preemption; the policies only answer its questions, so a new policy is a new class here.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace scoville::serving {

class BatchingPolicy {
 public:
  virtual ~BatchingPolicy() = default;
  virtual std::string name() const = 0;
  // Whether a running sequence is served this iteration (in admission order, while the token
  // budget lasts), given whether it is prefilling and whether the pool has prefill work (a
  // running sequence still prefilling, or a waiting one that could be admitted). Waiting
  // sequences are admitted after the running ones. When the rule leaves an iteration empty, the
  // scheduler serves every running sequence instead (no policy may stall the pool).
  virtual bool serves(bool prefilling, bool pool_has_prefill_work) const = 0;
};

class HandoffPolicy {
 public:
  virtual ~HandoffPolicy() = default;
  virtual std::string name() const = 0;
  // True: the prefill pool admits a request only when a decode slot (one of the decode pool's
  // max_num_seqs) is held for it, from its admission until it finishes.
  virtual bool reserves_decode_slot() const = 0;
};

// "fcfs" (the default; vLLM v1's chunked prefill, Sarathi-Serve's stall-free batching): every
// running sequence in admission order, then admissions, prompts chunked into the budget left.
// Admission order puts every decode before any prompt chunk (an older sequence never prefills
// while a younger one decodes: a chunk takes all the budget left, so nothing younger is admitted
// until the prompt is done), so this is decode priority. "prefill-first" (SGLang's default, vLLM
// v0): while the pool has prefill work an iteration runs prompts only and decodes wait, trading
// TPOT for TTFT.
std::vector<std::string> batching_policy_names();
bool is_batching_policy(const std::string& name);
// std::out_of_range naming the known policies when `name` is unknown (check is_ first for input).
std::shared_ptr<const BatchingPolicy> make_batching_policy(const std::string& name);

// "queue-at-decode" (the default; vLLM's disaggregated prefill connector): the prefill pool admits
// freely and prefilled requests wait for a decode slot; "reserve-decode-slot" (TensorRT-LLM under
// Dynamo's decode-first flow, SGLang's decode-side pre-allocation): a request starts prefill only
// with a decode slot held, so a full decode pool queues requests before their first token.
std::vector<std::string> handoff_policy_names();
bool is_handoff_policy(const std::string& name);
std::shared_ptr<const HandoffPolicy> make_handoff_policy(const std::string& name);

}  // namespace scoville::serving
