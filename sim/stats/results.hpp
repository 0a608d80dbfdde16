// What a study produces, per chip: phases (prefill, decode) with time, tokens and energy, the
// simulated iterations they were built from, and per-op rows. Plain data; sinks in sim/output.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "models/energy/energy_model.hpp"
#include "sim/base/units.hpp"
#include "sim/stats/power_timeline.hpp"

namespace scoville::stats {

// What limits an op: the matrix/vector engines, HBM bandwidth, or neither (latency, on-chip
// bandwidth, load imbalance). See classify_bound().
enum class Bound { kCompute, kHbm, kOther };
std::string to_string(Bound bound);

struct OpResult {
  int iteration = 0;  // index into ChipResult::iterations
  int layer = -1;
  std::string name;
  std::string kind;
  std::string math;  // executed precision (matmul/attention) or "vector"
  Duration start;    // from the start of its iteration
  Duration duration;
  Flops flops;
  Bytes hbm_bytes;     // the op's HBM reads + writes (a prefetch may serve some before it starts)
  Bytes shared_bytes;  // the op's shared SRAM reads + writes
  Duration compute_time;  // busiest tile's engine time: the op's compute-only bound
  Duration hbm_time;      // HBM bytes at peak bandwidth: the op's memory-only bound
  models::ActionCounts counts;
  models::EnergyBreakdown energy;
  Bound bound = Bound::kOther;
};

// Power management over an iteration or a phase (all zero and the nominal clock without it).
// Peaks are per op: the highest average power of any one op, by component and in total.
struct PowerStats {
  Duration throttled_time;        // spent below the nominal clock
  Duration stall_time;            // spent waking gated units
  double frequency_seconds = 0;   // integral of the tile clock over time, Hz s
  std::vector<Power> peak_power;  // per component, in models::component_names() order
  Power peak_total;

  // Time-weighted mean tile clock over `time` (the span these stats cover).
  Frequency effective_frequency(Duration time) const {
    return time.si() > 0 ? Frequency(frequency_seconds / time.si()) : Frequency();
  }
  // Adds `o` standing for `weight` spans like it (peaks do not scale).
  void add(const PowerStats& o, double weight);
};

struct IterationResult {
  std::string phase;  // "prefill" or "decode"
  int64_t batch = 0;
  int64_t new_tokens = 0;  // per sequence
  int64_t context = 0;     // per sequence, after this iteration
  double weight = 1.0;     // iterations of the phase this one stands for
  Duration time;           // hardware time
  Duration software_time;  // serving-stack overheads (the study's software profile; 0 if none)
  Flops flops;
  Bytes hbm_bytes;
  models::ActionCounts counts;
  models::EnergyBreakdown energy;
  std::map<Bound, Duration> time_by_bound;
  PowerStats power;
};

struct PhaseResult {
  std::string name;
  Duration time;           // whole phase (weighted sum of its iterations), hardware time
  int64_t tokens = 0;      // tokens processed (prefill: prompt tokens; decode: generated tokens)
  int64_t iterations = 0;  // real iterations the phase stands for
  Flops flops;
  Bytes hbm_bytes;
  models::EnergyBreakdown energy;
  std::map<Bound, Duration> time_by_bound;
  Duration software_time;  // whole phase, software overheads (0 without a software profile)
  PowerStats power;

  Duration total_time() const { return time + software_time; }
  double tokens_per_second() const {
    return total_time().si() > 0 ? tokens / total_time().si() : 0.0;
  }
  Energy energy_per_token() const { return tokens > 0 ? energy.total() / tokens : Energy(); }
  Power average_power() const { return time.si() > 0 ? energy.total() / time : Power(); }
  Bound dominant_bound() const;
  double share(Bound b) const;  // fraction of the phase's time spent in ops bound by b
};

struct ChipResult {
  std::string chip;
  std::string model;
  int64_t batch = 0;
  int64_t isl = 0;
  int64_t osl = 0;
  Power tdp;
  bool power_managed = false;  // the chip has a power_management section
  Power power_cap;             // the cap its controller held (power_managed only)
  Frequency nominal_clock;     // the tile clock
  Power idle_power;            // static power at the lowest point, gated (models::idle_power)
  Bytes weight_bytes;
  Bytes kv_bytes;  // KV cache at the end of the request (batch x (isl + osl))
  Bytes hbm_capacity;
  FlopRate peak_flop_rate;  // at the model's main matmul precision as executed
  Bandwidth peak_hbm_bandwidth;
  Bytes hbm_bytes_served;  // by the HBM channels over all simulated iterations (unweighted)
  std::vector<PhaseResult> phases;
  std::vector<IterationResult> iterations;
  std::vector<OpResult> ops;
  // Power timeline (power-managed chips): per iteration, windows of the controller's time
  // constant and the tile clock over time.
  Duration power_window;
  std::vector<PowerWindow> power_windows;
  std::vector<ClockSegment> clock_segments;
};

}  // namespace scoville::stats
