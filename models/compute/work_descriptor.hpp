// What a chip is asked to execute: a plain description of one op's work, with no reference to
// any workload type (sim/ translates workload ops into these).
#pragma once

#include <cstdint>
#include <string>

#include "sim/base/number_format.hpp"
#include "sim/base/units.hpp"

namespace scoville::models {

enum class WorkClass {
  kMatmul,     // instances x ([m x k] * [k x n]); the [k x n] operand streams from HBM
  kAttention,  // instances x (m queries against n keys of size k); keys/values stream from HBM
  kVector,     // elementwise/reduction work on the vector units
};

// How an op's HBM reads are laid out. Ops of a model stream contiguous ranges (weights, a
// sequence's KV); micro-benchmarks also read in fixed-size requests at a stride, or at random
// (request-aligned) places within a span, to show what scattered access achieves.
enum class HbmAccess { kSequential, kStrided, kRandom };

struct HbmPattern {
  HbmAccess access = HbmAccess::kSequential;
  uint64_t request_bytes = 0;  // strided/random: bytes per request
  uint64_t stride_bytes = 0;   // strided: distance between request starts (>= request_bytes)
  uint64_t span_bytes = 0;     // random: requests fall in [0, span)
};

struct WorkDescriptor {
  std::string label;
  WorkClass work_class = WorkClass::kVector;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  int64_t instances = 1;
  MathPrecision math = MathPrecision::kBf16;  // precision the engine executes at
  Flops flops;                 // total; for attention this includes causal masking savings
  Bytes stream_bytes;          // read from HBM: weights (matmul, vector lookups) or KV (attention)
  Bytes hbm_write_bytes;       // written to HBM (KV append)
  Bytes activation_in_bytes;   // unique activations read (each tile may re-read them)
  Bytes activation_out_bytes;  // unique activations written
  HbmPattern hbm_pattern;      // layout of the HBM reads
};

}  // namespace scoville::models
