// Calibration knobs of the serving cost models: how far a real serving stack stays from the
// chip's peaks (roofline) or from the chip model's time (op table, `op_time`). The roofline prices
// an op at max(FLOPs / peak, bytes / HBM bandwidth); real kernels reach a fraction of each peak,
// and a real stack pays host and launch time the software profile (arch/software) only estimates.
// Each knob exists for one of those gaps:
//   compute[c]    achieved fraction of peak math rate for op class c (gemm, attention, other):
//                 GEMM tiles waste work at small batch and ramp the clock down under load,
//                 attention kernels reach less than GEMMs, vector ops less again;
//   bandwidth[c]  achieved fraction of HBM bandwidth for op class c: streaming weights reaches
//                 ~70-90 % of peak, paged KV gathers less;
//   per_op        extra time per fused op (launch gaps, kernel tails) beyond the profile's;
//   per_iteration extra time per iteration (scheduler, sampling, host sync) beyond the profile's;
//   per_sequence  extra time per sequence of an iteration (one host scheduler's share: request
//                 bookkeeping, sampling, output processing) beyond the profile's: host work that
//                 grows with the batch, which a fixed per-iteration time can only average.
// The three overheads are software time: `scoville calibrate --per-stack` fits them once per
// serving stack (sim/config/stack_calibration.hpp), shared by every system running it.
// Identity (all fractions 1, overheads 0) leaves the roofline as it was: raw spec predictions.
// Values come from `scoville calibrate` overlays (sim/config/calibration_overlay.hpp); this file
// only applies them, so the roofline's arithmetic stays in one small place.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "sim/base/units.hpp"
#include "workloads/op.hpp"

namespace scoville::serving {

enum class OpClass : uint8_t { kGemm = 0, kAttention = 1, kOther = 2 };
constexpr int kOpClassCount = 3;
const char* to_string(OpClass c);

// kMatmul -> gemm, kAttention -> attention, everything else (vector, memory) -> other.
OpClass op_class(workloads::OpKind kind);

struct EfficiencyKnobs {
  std::array<double, kOpClassCount> compute{{1.0, 1.0, 1.0}};    // fraction of peak, (0, 1]
  std::array<double, kOpClassCount> bandwidth{{1.0, 1.0, 1.0}};  // fraction of HBM peak, (0, 1]
  Duration per_op;         // added per fused op of an iteration
  Duration per_iteration;  // added once per iteration
  Duration per_sequence;   // added per sequence of one host scheduler's share of the iteration

  bool identity() const;
  // The op's times once the class's efficiencies are applied.
  double compute_time(double peak_time_s, OpClass c) const {
    return peak_time_s / compute[static_cast<size_t>(c)];
  }
  double memory_time(double bytes, double peak_bandwidth, OpClass c) const {
    return bytes / (peak_bandwidth * bandwidth[static_cast<size_t>(c)]);
  }
  // The calibrated time of an op whose time another model gave (the simulated op table): the
  // class's fraction of the resource that binds it stretches the time that resource is busy
  // (`busy_s`: the slowest tile's compute, or the op's HBM bytes at peak bandwidth), as it
  // stretches that resource's term of the roofline; the rest of the op's time (pipeline fill
  // and drain, synchronisation, first-byte latency) is the chip model's and stays. A fraction
  // of a rate says how far real kernels stay from it; it says nothing of a small op's fixed
  // latency, which stretching whole would price as if it were work. The same knobs thus
  // decorate either op-cost model (the roofline has no fixed part: busy = time).
  double op_time(double model_time_s, double busy_s, bool compute_bound, OpClass c) const {
    const size_t i = static_cast<size_t>(c);
    const double busy = busy_s < 0 ? 0.0 : (busy_s > model_time_s ? model_time_s : busy_s);
    return model_time_s + busy * (1.0 / (compute_bound ? compute[i] : bandwidth[i]) - 1.0);
  }
  // Extra software time of an iteration of `fused_ops` ops serving `sequences` sequences (the
  // busiest host scheduler's).
  double overhead_s(int64_t fused_ops, int64_t sequences = 0) const {
    return per_op.si() * static_cast<double>(fused_ops) + per_iteration.si() +
           per_sequence.si() * static_cast<double>(sequences);
  }
};

}  // namespace scoville::serving
