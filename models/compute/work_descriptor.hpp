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
};

}  // namespace scoville::models
