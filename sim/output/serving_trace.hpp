// Chrome Trace Event JSON (Perfetto, chrome://tracing) for one serving run (`serve --trace`,
// `inferencex --trace`), docs/results-format.md#timelines:
//   - a process per pool with a thread of its scheduler iterations (slices "prefill", "decode" or
//     "mixed", the batch in their args) and counters (batch sequences and tokens, KV blocks used,
//     running and waiting sequences, power);
//   - a process "requests" with a thread per request: the request from send to last token, its
//     TTFT and TPOT spans, and under them what it was doing (queued, prefill, KV transfer,
//     decode, preempted); counters of requests in flight and held back by the client;
//   - disaggregated runs: a flow arrow per KV hand-over, from the prefill iteration that finished
//     the prompt to the decode pool's first iteration of the request.
// ServingTimelineRecorder watches the scheduler (SchedulerObserver); it records, never decides.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/output/perfetto_trace.hpp"
#include "sim/output/provenance.hpp"
#include "sim/serving/scheduler_observer.hpp"
#include "sim/serving/serving_run.hpp"

namespace scoville::output {

class ServingTimelineRecorder : public serving::SchedulerObserver {
 public:
  struct Iteration {
    int pool = 0;
    Duration start;
    Duration end;
    Energy energy;
    int64_t prefill_sequences = 0;
    int64_t decode_sequences = 0;
    int64_t prefill_tokens = 0;
    int64_t decode_tokens = 0;
    int64_t kv_blocks_used = 0;
    int64_t running = 0;
    int64_t waiting = 0;
  };
  // Back-to-back iterations of one request in one phase on one pool.
  struct Segment {
    int pool = 0;
    serving::SequencePhase phase = serving::SequencePhase::kDecode;
    Duration start;
    Duration end;
    int64_t iterations = 0;
    int64_t tokens = 0;
  };
  struct Transfer {
    serving::ObservedKvTransfer transfer;
    size_t from_iteration = 0;           // the prefill iteration that finished the prompt
    std::optional<size_t> to_iteration;  // the decode pool's first iteration of the request
  };

  void on_iteration(const serving::ObservedIteration& iteration) override;
  void on_preemption(int pool, int64_t request, Duration at) override;
  void on_kv_transfer(const serving::ObservedKvTransfer& transfer) override;

  const std::vector<Iteration>& iterations() const { return iterations_; }  // in start order
  const std::vector<Transfer>& transfers() const { return transfers_; }
  // Per request index; empty for a request never scheduled.
  const std::vector<Segment>& segments(int64_t request) const;
  const std::vector<Duration>& preemptions(int64_t request) const;

 private:
  template <typename T>
  static T& at(std::vector<T>& v, int64_t i);

  std::vector<Iteration> iterations_;
  std::vector<std::vector<Segment>> segments_;
  std::vector<std::vector<Duration>> preemptions_;
  std::vector<Transfer> transfers_;
  std::vector<size_t> last_iteration_;           // per pool, index into iterations_
  std::vector<std::optional<size_t>> awaiting_;  // per request: its transfer awaiting a decode
};

// `title` names the run in otherData (e.g. the scenario, or "tp8 at concurrency 64").
std::string render_serving_trace(const serving::ServingSystem& system,
                                 const serving::ServingResult& result,
                                 const ServingTimelineRecorder& recorder, const std::string& title,
                                 const Provenance& provenance, const TraceOptions& options);

}  // namespace scoville::output
