// The decode pool of a given parallel layout, for the mapping tests (chips = dp x pp x tp).
#pragma once

#include <cstdint>

#include "workloads/mapping/pool_mapping.hpp"

namespace scoville::workloads::testing {

inline PoolMapping pool(int64_t tp, int64_t ep, int64_t pp, int64_t dp, int64_t attn_dp,
                        bool sequence_parallel = false) {
  PoolMapping m;
  m.pool = "decode";
  m.degrees = ParallelDegrees{tp, ep, pp, dp, attn_dp, sequence_parallel};
  m.chips = dp * pp * tp;
  return m;
}

}  // namespace scoville::workloads::testing
