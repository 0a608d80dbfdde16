// How one op's work is spread over a chip's tiles and cut into double-buffered blocks.
//
// Matmul: with at least as many instances (e.g. experts) as tiles, each tile runs whole
// instances. Otherwise each instance is cut into the members of a rows x cols x depth grid,
// chosen to minimise the slowest member's time (its compute, or its share of on-chip traffic),
// and the members of all instances are dealt to the tiles in turn; an instance has as many
// members as leave the most loaded tile least work (tiles / instances when that divides, so that
// no tile idles where a grouped GEMM's tile scheduler would keep it busy): every weight panel is
// streamed from HBM once (by the first grid row) and multicast to the other rows through shared
// SRAM; activation rows are read from shared SRAM by every column; spare members split the
// reduction (split-K) when the rows cannot use them, and add their partial sums on the vector
// units. A chip that states its GEMM library (library_tile) deals the library's macro tiles to the
// tiles in waves, each with its whole reduction, for GEMMs with at least one macro tile per tile
// (wave quantisation); smaller GEMMs take the grid, its members no smaller than the library's
// smallest tile and its reduction split no more ways than the library splits it. Attention: each
// (sequence, KV head) unit goes to one tile; with fewer units than tiles the keys are split into
// parts (flash-decoding): tiles / units of them when that divides, otherwise as many as leave the
// most loaded tile fewest keys, dealt to the tiles in turn; the partial results are combined on the
// vector units. The softmax itself is not added here: the workload describes it as its own vector
// op (with model details such as attention sinks), so counting it here too would count it twice.
// Vector work: spread evenly over all tiles. Activations: every tile reads the activation rows it
// needs from shared SRAM; when an op's unique activations do not fit in shared SRAM they also cross
// HBM once (read in, write out).
#pragma once

#include "models/chip/chip_params.hpp"
#include "models/compute/matrix_engine_model.hpp"
#include "models/compute/work_block.hpp"
#include "models/compute/work_descriptor.hpp"

namespace scoville::models {

class TilingPolicy {
 public:
  // Blocks per tile per op are capped so that event counts stay bounded on huge prefills; a
  // block is then larger than a buffer slot, which only exposes the first load (at most
  // 1/kMaxBlocksPerTile of a tile's data) -- negligible for the compute-bound ops it affects.
  static constexpr int64_t kMaxBlocksPerTile = 32;
  // A tile's share is cut into at least this many blocks (each at least kMinBlockBytes), so that
  // only 1/kMinBlocksPerTile of its loading or computing is exposed by the double buffer's fill.
  static constexpr int64_t kMinBlocksPerTile = 8;
  static constexpr int64_t kMinBlockBytes = 16384;
  // Members per instance tried beyond tiles / instances, as a multiple of ceil(tiles /
  // instances): enough to bring the most loaded tile within about 15 % of an even spread (75
  // instances on 148 tiles: 7 members each, 0.571 of an instance per tile against 0.507).
  static constexpr int64_t kMaxMemberSpread = 4;

  explicit TilingPolicy(const ChipParams& chip);

  TilePlan plan(const WorkDescriptor& work) const;

 private:
  struct MatmulGrid {
    int64_t rows = 1;
    int64_t cols = 1;
    int64_t depth = 1;   // split-K factor
    double time = 0.0;   // the slowest member's estimated time, s
    int64_t budget = 1;  // the members it was chosen for (choose_grid's group)
    int64_t members() const { return rows * cols * depth; }
  };
  TilePlan plan_matmul(const WorkDescriptor& work) const;
  MatmulGrid choose_grid(const WorkDescriptor& work, int64_t group, double weight_bytes_per_value,
                         double activation_bytes_per_value) const;
  // The grid each of fewer instances than tiles is cut into: choose_grid's for tiles / instances
  // members, or for up to kMaxMemberSpread times as many where dealing them leaves the most
  // loaded tile less work.
  MatmulGrid balanced_grid(const WorkDescriptor& work, double weight_bytes_per_value,
                           double activation_bytes_per_value) const;
  TilePlan plan_attention(const WorkDescriptor& work) const;
  TilePlan plan_vector(const WorkDescriptor& work) const;
  // Cuts a tile's total work into blocks no larger than one double-buffer slot.
  void append_blocks(std::vector<WorkBlock>& tile_blocks, const WorkBlock& total) const;
  // Moves unique activation traffic to HBM when the op's activations overflow shared SRAM.
  void apply_activation_spill(const WorkDescriptor& work, TilePlan& plan) const;
  // Whether a matmul is cut into the chip's library macro tiles (instead of a grid).
  bool uses_library_tiles(const WorkDescriptor& work) const;

  ChipParams chip_;
  MatrixEngineModel engine_;
};

}  // namespace scoville::models
