// A benchmark's steady-state measurement window over a simulated closed-loop run, so that a
// prediction covers the span the measurement covers. The ML.ENERGY Benchmark v3.0 sends all N
// requests at once to a server whose batch limit is B = max_num_seqs and measures GPU energy and
// generated tokens only between two moments (ml-energy/benchmark `RequestTracker`, mlenergy/
// benchmark/llm/benchmark.py): from when B requests have received their first output token (the
// initial prefill burst is over) to when N - B - 1 requests have finished (the batch is about to
// drain). Its published energy per token, average power and output throughput are that window's
// (ml-energy/data `mlenergy_data/records/runs.py`: throughput = steady energy / energy per token /
// steady duration). A whole-run average adds the burst and the drain, which that benchmark leaves
// out. docs/validation.md, "Energy".
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/base/units.hpp"
#include "sim/serving/request_record.hpp"
#include "sim/serving/scheduler_observer.hpp"

namespace scoville::serving {

struct MeasurementWindow {
  Duration start;
  Duration end;
};

// The window of a run of `records` (every request finished) under a batch limit of
// `max_num_seqs`; nullopt when the run is too short to have one (N - B - 1 < 1, or the end not
// after the start), where the benchmark's window would be empty.
std::optional<MeasurementWindow> steady_state_window(const std::vector<RequestRecord>& records,
                                                     int64_t max_num_seqs);

// Every pool's iterations, kept as the scheduler reports them (pool, start, end, energy).
class IterationEnergyLog : public SchedulerObserver {
 public:
  struct Entry {
    int pool = 0;
    Duration start;
    Duration end;
    Energy energy;
  };
  void on_iteration(const ObservedIteration& iteration) override;
  void on_preemption(int, int64_t, Duration) override {}
  void on_kv_transfer(const ObservedKvTransfer&) override {}
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

struct WindowTotals {
  Duration time;
  Energy energy;             // every pool's chips: iterations pro rata, gaps at idle power
  double output_tokens = 0;  // tokens the clients received inside the window
};

// What the window holds. An iteration that straddles an edge counts for the part inside it (its
// energy spread evenly over its time); a pool's time inside the window with no iteration counts at
// `idle_power_w[pool]` (that pool's chips together). Tokens: each request's first token at
// `first_token`, its later ones spread evenly over its deliveries (one token each without MTP).
WindowTotals window_totals(const MeasurementWindow& window,
                           const std::vector<IterationEnergyLog::Entry>& iterations,
                           const std::vector<RequestRecord>& records,
                           const std::vector<double>& idle_power_w);

}  // namespace scoville::serving
