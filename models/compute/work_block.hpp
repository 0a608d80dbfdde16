// The unit of work a tile executes: data to bring in, compute to do, data to send out.
// A tile double-buffers blocks: block i+1 loads while block i computes.
#pragma once

#include <vector>

#include "sim/base/number_format.hpp"
#include "sim/base/units.hpp"

namespace scoville::models {

struct WorkBlock {
  Bytes hbm_read;            // streamed from HBM into the tile buffer
  Bytes shared_read;         // read from the chip's shared SRAM (activations, multicast weights)
  Bytes hbm_write;           // written to HBM after compute (KV append, spilled activations)
  Bytes shared_write;        // written to shared SRAM after compute (output activations)
  double matrix_cycles = 0;  // matrix engine busy cycles
  double vector_cycles = 0;  // vector unit busy cycles
  double macs = 0;           // useful multiply-accumulates (for energy)
  double vector_flops = 0;   // useful vector FLOP (for energy)
  // Precision of the matrix work: its cycles run at that precision's sustained clock.
  MathPrecision math = MathPrecision::kBf16;
};

// One op's work, cut into blocks per tile. Tiles with no work have an empty list.
struct TilePlan {
  std::vector<std::vector<WorkBlock>> blocks_per_tile;

  // Sums over every block of every tile.
  WorkBlock totals() const;
  // The largest per-tile sum of compute cycles (matrix + vector): the op's compute-only time.
  double max_tile_compute_cycles() const;
};

}  // namespace scoville::models
