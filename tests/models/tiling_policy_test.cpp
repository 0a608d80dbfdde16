// TilingPolicy: conservation properties of the plans over many shapes. A small chip is built by
// hand; every expected value is derived from it or from the work descriptor.
#include <catch2/catch.hpp>

#include <cmath>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "models/compute/tiling_policy.hpp"

using namespace scoville;
using namespace scoville::models;

namespace {

constexpr double kRel = 1e-9;             // relative tolerance for sums of doubles
constexpr double kActivationBytes = 2.0;  // bf16 activations
constexpr double kKvBytes = 2.0;          // bf16 keys and values

ChipParams small_chip() {
  ChipParams c;
  c.name = "test_chip";
  c.tiles.count = 8;
  c.tiles.clock = gigahertz(1.0);
  c.tiles.matrix.rows = 16;
  c.tiles.matrix.cols = 16;
  c.tiles.matrix.k_per_cycle[index_of(MathPrecision::kBf16)] = 1;
  c.tiles.matrix.k_per_cycle[index_of(MathPrecision::kFp8)] = 2;
  c.tiles.matrix.pipeline_latency_cycles = 8;
  c.tiles.vector.flops_per_cycle = 32;
  c.tiles.sram = kib(64);
  c.tiles.sram_bandwidth = gigabytes_per_second(512);
  c.shared_sram.capacity = mib(8);
  c.shared_sram.bandwidth = terabytes_per_second(2);
  c.shared_sram.banks = 4;
  c.noc.latency = nanoseconds(20);
  c.hbm.stacks = 2;
  c.hbm.channels_per_stack = 4;
  c.hbm.bandwidth_per_channel = gigabytes_per_second(64);
  c.hbm.capacity = gib(16);
  c.hbm.latency = nanoseconds(100);
  c.hbm.interleave_granule = bytes(256);
  return c;
}

double d(int64_t v) { return static_cast<double>(v); }

WorkDescriptor matmul(int64_t instances, int64_t m, int64_t n, int64_t k, MathPrecision math,
                      double weight_bytes_per_value) {
  WorkDescriptor w;
  w.label = "matmul";
  w.work_class = WorkClass::kMatmul;
  w.m = m;
  w.n = n;
  w.k = k;
  w.instances = instances;
  w.math = math;
  w.flops = Flops(2.0 * d(m) * d(n) * d(k) * d(instances));
  w.stream_bytes = Bytes(d(instances) * d(k) * d(n) * weight_bytes_per_value);
  w.activation_in_bytes = Bytes(d(instances) * d(m) * d(k) * kActivationBytes);
  w.activation_out_bytes = Bytes(d(instances) * d(m) * d(n) * kActivationBytes);
  return w;
}

// instances (sequence, KV head) units of m queries against n keys of head size k; `useful` is
// the fraction of the full m x n scores computed (causal masking).
WorkDescriptor attention(int64_t instances, int64_t m, int64_t n, int64_t k, double useful) {
  WorkDescriptor w;
  w.label = "attention";
  w.work_class = WorkClass::kAttention;
  w.m = m;
  w.n = n;
  w.k = k;
  w.instances = instances;
  w.flops = Flops(4.0 * d(m) * d(n) * d(k) * d(instances) * useful);
  w.stream_bytes = Bytes(2.0 * d(instances) * d(n) * d(k) * kKvBytes);     // K and V
  w.hbm_write_bytes = Bytes(2.0 * d(instances) * d(m) * d(k) * kKvBytes);  // KV append
  w.activation_in_bytes = Bytes(d(instances) * d(m) * d(k) * kActivationBytes);
  w.activation_out_bytes = Bytes(d(instances) * d(m) * d(k) * kActivationBytes);
  return w;
}

WorkDescriptor vector_op(double flop_count, Bytes stream, Bytes hbm_write, Bytes in, Bytes out) {
  WorkDescriptor w;
  w.label = "vector";
  w.work_class = WorkClass::kVector;
  w.flops = Flops(flop_count);
  w.stream_bytes = stream;
  w.hbm_write_bytes = hbm_write;
  w.activation_in_bytes = in;
  w.activation_out_bytes = out;
  return w;
}

bool spills(const ChipParams& chip, const WorkDescriptor& w) {
  return w.activation_in_bytes + w.activation_out_bytes > chip.shared_sram.capacity;
}

std::string describe(const WorkDescriptor& w) {
  return w.label + " instances=" + std::to_string(w.instances) + " m=" + std::to_string(w.m) +
         " n=" + std::to_string(w.n) + " k=" + std::to_string(w.k);
}

int64_t busy_tiles(const TilePlan& plan) {
  return std::count_if(plan.blocks_per_tile.begin(), plan.blocks_per_tile.end(),
                       [](const std::vector<WorkBlock>& t) { return !t.empty(); });
}

// Properties every plan has: one entry per tile, no block larger than a buffer slot unless the
// block cap is hit, no negative quantities, the compute-only time covers the matrix work.
void check_structure(const ChipParams& chip, const TilePlan& plan) {
  REQUIRE(plan.blocks_per_tile.size() == static_cast<size_t>(chip.tiles.count));
  const double slot = chip.tiles.sram.si() / 2.0;
  double matrix_cycles = 0;
  for (const auto& tile : plan.blocks_per_tile) {
    CHECK(static_cast<int64_t>(tile.size()) <= TilingPolicy::kMaxBlocksPerTile);
    const bool capped = static_cast<int64_t>(tile.size()) == TilingPolicy::kMaxBlocksPerTile;
    for (const WorkBlock& b : tile) {
      const double in = b.hbm_read.si() + b.shared_read.si();
      if (!capped) CHECK(in <= slot * (1 + kRel));
      CHECK(b.hbm_read.si() >= 0);
      CHECK(b.shared_read.si() >= 0);
      CHECK(b.hbm_write.si() >= 0);
      CHECK(b.shared_write.si() >= 0);
      CHECK(b.matrix_cycles >= 0);
      CHECK(b.vector_cycles >= 0);
      matrix_cycles += b.matrix_cycles;
    }
  }
  CHECK(plan.max_tile_compute_cycles() >=
        matrix_cycles / static_cast<double>(chip.tiles.count) * (1 - kRel));
}

// HBM traffic: the streamed bytes exactly once, plus the activations when they spill.
void check_hbm(const ChipParams& chip, const WorkDescriptor& w, const WorkBlock& totals) {
  const bool spill = spills(chip, w);
  const Bytes read = w.stream_bytes + (spill ? w.activation_in_bytes : Bytes{});
  const Bytes write = w.hbm_write_bytes + (spill ? w.activation_out_bytes : Bytes{});
  CHECK(totals.hbm_read.si() == Approx(read.si()).epsilon(kRel));
  CHECK(totals.hbm_write.si() == Approx(write.si()).epsilon(kRel));
}

const std::vector<WorkDescriptor>& matmul_shapes() {
  static const std::vector<WorkDescriptor> shapes = {
      // instances >= tiles: whole experts per tile
      matmul(8, 4, 64, 128, MathPrecision::kBf16, 2),
      matmul(13, 1, 100, 70, MathPrecision::kFp8, 1),
      matmul(32, 512, 256, 512, MathPrecision::kBf16, 2),
      matmul(64, 1, 2048, 1024, MathPrecision::kFp8, 0.5),
      // instances < tiles: a grid per instance
      matmul(1, 1, 4096, 4096, MathPrecision::kBf16, 2),     // decode
      matmul(1, 2048, 1024, 1024, MathPrecision::kBf16, 2),  // prefill
      matmul(1, 4096, 1024, 2048, MathPrecision::kFp8, 1),   // prefill, spills
      matmul(3, 17, 100, 333, MathPrecision::kBf16, 2),      // n not a multiple of cols
      matmul(1, 1, 16, 8192, MathPrecision::kBf16, 2),       // split-K
      matmul(2, 5, 40, 1000, MathPrecision::kFp8, 1),
      matmul(5, 3000, 24, 48, MathPrecision::kFp8, 1),
      matmul(1, 33, 17, 5, MathPrecision::kBf16, 2), matmul(7, 1, 1, 1, MathPrecision::kBf16, 2),
      matmul(1, 1000000, 16, 64, MathPrecision::kBf16, 2),  // hits the block cap
  };
  return shapes;
}

}  // namespace

TEST_CASE("tiling matmul conserves MACs and streams weights once", "[models][tiling]") {
  const ChipParams chip = small_chip();
  const TilingPolicy policy(chip);
  const MatrixEngineParams& e = chip.tiles.matrix;
  for (const WorkDescriptor& w : matmul_shapes()) {
    INFO(describe(w));
    const TilePlan plan = policy.plan(w);
    check_structure(chip, plan);
    const WorkBlock t = plan.totals();
    CHECK(t.macs == Approx(d(w.m) * d(w.n) * d(w.k) * d(w.instances)).epsilon(kRel));
    check_hbm(chip, w, t);
    // Activations are read at least once and written at least once (split-K members write
    // partial sums); multicast weight copies come from shared SRAM, not HBM.
    CHECK(t.shared_read.si() >= w.activation_in_bytes.si() * (1 - kRel));
    CHECK(t.shared_write.si() >= w.activation_out_bytes.si() * (1 - kRel));
    // No work lost: the slowest tile needs at least an even share of the ideal cycles.
    const double ideal = d(w.m) * d(w.n) * d(w.k) * d(w.instances) / d(e.macs_per_cycle(w.math)) /
                         d(chip.tiles.count);
    CHECK(plan.max_tile_compute_cycles() >= ideal * (1 - kRel));
  }
}

TEST_CASE("tiling matmul spreads instances over tiles", "[models][tiling]") {
  const ChipParams chip = small_chip();
  const TilingPolicy policy(chip);
  const MatrixEngineModel engine(chip.tiles.matrix);
  SECTION("at least as many instances as tiles: whole instances, evenly") {
    const int64_t tiles = chip.tiles.count;
    const WorkDescriptor w = matmul(tiles + 3, 16, 64, 256, MathPrecision::kBf16, 2);
    const TilePlan plan = policy.plan(w);
    check_structure(chip, plan);
    CHECK(busy_tiles(plan) == tiles);
    const double one = engine.cycles(w.m, w.n, w.k, w.math);
    const double per_tile_max = std::ceil(d(w.instances) / d(tiles));
    CHECK(plan.max_tile_compute_cycles() == Approx(per_tile_max * one).epsilon(kRel));
    CHECK(plan.totals().matrix_cycles == Approx(d(w.instances) * one).epsilon(kRel));
  }
  SECTION("decode on one instance uses every tile") {
    const WorkDescriptor w = matmul(1, 1, 4096, 4096, MathPrecision::kBf16, 2);
    const TilePlan plan = policy.plan(w);
    CHECK(busy_tiles(plan) == chip.tiles.count);
    // With one row the spare members may split k instead of n; either way the weights cross
    // HBM once and the slowest tile does an eighth of the work.
    CHECK(plan.totals().hbm_read.si() == Approx(w.stream_bytes.si()).epsilon(kRel));
  }
  SECTION("a narrow, deep matmul splits the reduction") {
    // n fits one column block and m one row block, so the spare tiles must split k.
    const WorkDescriptor w = matmul(1, 1, chip.tiles.matrix.cols, 8192, MathPrecision::kBf16, 2);
    const TilePlan plan = policy.plan(w);
    CHECK(busy_tiles(plan) == chip.tiles.count);
    const WorkBlock t = plan.totals();
    // Each member adds its m x n partial sums on the vector unit.
    CHECK(t.vector_flops == Approx(d(chip.tiles.count) * d(w.m) * d(w.n)));
    CHECK(t.vector_cycles ==
          Approx(t.vector_flops / chip.tiles.vector.flops_per_cycle).epsilon(kRel));
    // The weights still cross HBM exactly once.
    CHECK(t.hbm_read.si() == Approx(w.stream_bytes.si()).epsilon(kRel));
  }
  SECTION("instances that do not divide the tiles are dealt over every tile") {
    // Whole groups of tiles / instances members each would leave tiles idle and give the slowest
    // tile 1 / group of an instance; a grouped GEMM's scheduler deals finer members to them all.
    const WorkDescriptor w = matmul(3, 256, 256, 256, MathPrecision::kBf16, 2);
    const TilePlan plan = policy.plan(w);
    check_structure(chip, plan);
    const int64_t tiles = chip.tiles.count;
    const int64_t group = tiles / w.instances;
    REQUIRE(group * w.instances < tiles);
    CHECK(busy_tiles(plan) == tiles);
    const double one = engine.cycles(w.m, w.n, w.k, w.math);
    INFO("one instance " << one << " cycles, slowest tile " << plan.max_tile_compute_cycles());
    CHECK(plan.max_tile_compute_cycles() < one / d(group) * (1 - 1e-6));
    CHECK(plan.max_tile_compute_cycles() >= one * d(w.instances) / d(tiles) * (1 - kRel));
  }
  SECTION("instances that divide the tiles keep one group each") {
    const int64_t tiles = chip.tiles.count;
    const WorkDescriptor w = matmul(tiles / 2, 256, 256, 256, MathPrecision::kBf16, 2);
    const TilePlan plan = policy.plan(w);
    CHECK(busy_tiles(plan) == tiles);
    const double one = engine.cycles(w.m, w.n, w.k, w.math);
    CHECK(plan.max_tile_compute_cycles() == Approx(one / 2.0).epsilon(0.01));
  }
}

TEST_CASE("tiling attention conserves KV traffic and work", "[models][tiling]") {
  const ChipParams chip = small_chip();
  const TilingPolicy policy(chip);
  const std::vector<WorkDescriptor> shapes = {
      attention(64, 1, 4096, 128, 1.0),    // decode, units >= tiles
      attention(8, 1, 333, 64, 1.0),       // units == tiles
      attention(2, 1, 10000, 128, 1.0),    // flash-decoding over a group
      attention(1, 1, 5, 64, 1.0),         // fewer keys than group members
      attention(3, 512, 512, 64, 0.5),     // causal prefill
      attention(9, 2048, 2048, 128, 0.5),  // big causal prefill
      attention(1, 4096, 4096, 128, 0.5),  // one long prefill split over all tiles, spills
      attention(5, 7, 1001, 96, 0.8),
  };
  for (const WorkDescriptor& w : shapes) {
    INFO(describe(w));
    const TilePlan plan = policy.plan(w);
    check_structure(chip, plan);
    const WorkBlock t = plan.totals();
    check_hbm(chip, w, t);
    // Two matmuls (scores, then values) of m x n x k each, scaled by the useful fraction.
    CHECK(2.0 * t.macs == Approx(w.flops.si()).epsilon(kRel));
    // Vector work is only the flash-decoding combine (m x k per part of a split unit); the
    // softmax is the workload's own vector op. A unit is split into at least tiles / units parts
    // (whole groups) and at most kMaxMemberSpread x ceil(tiles / units), never into more parts
    // than keys; the parts are dealt so that every tile they reach is busy.
    CHECK(t.shared_read.si() == Approx(w.activation_in_bytes.si()).epsilon(kRel));
    CHECK(t.shared_write.si() == Approx(w.activation_out_bytes.si()).epsilon(kRel));
    if (w.instances >= chip.tiles.count) {
      CHECK(t.vector_flops == 0.0);
      CHECK(busy_tiles(plan) == chip.tiles.count);
      continue;
    }
    const int64_t group = chip.tiles.count / w.instances;
    const double parts = t.vector_flops / (d(w.instances) * d(w.m) * d(w.k));
    const int64_t members = parts > 0 ? std::llround(parts) : 1;
    CHECK(t.vector_flops ==
          Approx(members > 1 ? d(w.instances) * d(members) * d(w.m) * d(w.k) : 0.0).margin(1e-9));
    CHECK(members >= std::min(group, w.n));
    CHECK(members <=
          std::min(w.n, std::max(group, TilingPolicy::kMaxMemberSpread *
                                            ((chip.tiles.count + w.instances - 1) / w.instances))));
    CHECK(busy_tiles(plan) == std::min(chip.tiles.count, w.instances * members));
  }
}

TEST_CASE("tiling attention splits units finely when whole groups would idle tiles",
          "[models][tiling]") {
  // 3 units on 8 tiles: whole groups of 2 would idle 2 tiles and give a tile 256 of 512 keys.
  // Splits of 3..12 parts give the most loaded tile ceil(3 s / 8) x ceil(512 / s) keys: 342,
  // 256, 206, 258, 222, 192 (s = 8), 228, 208, 235, 215, so each unit is cut into 8 parts of 64
  // keys, three to a tile.
  const ChipParams chip = small_chip();
  REQUIRE(chip.tiles.count == 8);
  const TilingPolicy policy(chip);
  const WorkDescriptor w = attention(3, 512, 512, 64, 0.5);
  const TilePlan plan = policy.plan(w);
  check_structure(chip, plan);
  CHECK(busy_tiles(plan) == 8);
  CHECK(plan.totals().vector_flops == Approx(3.0 * 8 * 512 * 64));
  const WorkBlock unit_whole = policy.plan(attention(8, 512, 512, 64, 0.5)).totals();
  // The slowest tile does three 64-key parts: 3/8 of a unit's matrix work, not 2/4.
  double worst = 0;
  for (const auto& tile : plan.blocks_per_tile) {
    double cycles = 0;
    for (const WorkBlock& b : tile) cycles += b.matrix_cycles;
    worst = std::max(worst, cycles);
  }
  CHECK(worst == Approx(unit_whole.matrix_cycles / 8.0 * 3.0 / 8.0).epsilon(0.02));
}

TEST_CASE("tiling vector work is spread evenly", "[models][tiling]") {
  const ChipParams chip = small_chip();
  const TilingPolicy policy(chip);
  const std::vector<WorkDescriptor> shapes = {
      vector_op(1e6, Bytes{}, Bytes{}, mib(1), mib(1)),    // norm
      vector_op(3, Bytes{}, Bytes{}, bytes(6), bytes(6)),  // tiny
      vector_op(4096, mib(3), Bytes{}, kib(8), mib(3)),    // embedding lookup
      vector_op(1e9, Bytes{}, kib(64), mib(6), mib(6)),    // spills
  };
  for (const WorkDescriptor& w : shapes) {
    INFO(w.flops.si());
    const TilePlan plan = policy.plan(w);
    check_structure(chip, plan);
    const WorkBlock t = plan.totals();
    CHECK(t.vector_flops == Approx(w.flops.si()).epsilon(kRel));
    CHECK(t.macs == 0);
    CHECK(t.matrix_cycles == 0);
    check_hbm(chip, w, t);
    CHECK(busy_tiles(plan) == chip.tiles.count);
    const double per_tile = w.flops.si() / d(chip.tiles.count) / chip.tiles.vector.flops_per_cycle;
    CHECK(plan.max_tile_compute_cycles() == Approx(per_tile).epsilon(kRel));
  }
}

TEST_CASE("tiling blocks respect the buffer slot", "[models][tiling]") {
  const ChipParams chip = small_chip();
  const TilingPolicy policy(chip);
  const double slot = chip.tiles.sram.si() / 2.0;
  SECTION("small work is one block") {
    const WorkDescriptor w = matmul(chip.tiles.count, 1, 16, 16, MathPrecision::kBf16, 2);
    const TilePlan plan = policy.plan(w);
    for (const auto& tile : plan.blocks_per_tile) CHECK(tile.size() == 1);
  }
  SECTION("a tile's data is cut into the fewest slots that hold it") {
    // One instance per tile; its input bytes set the block count.
    const WorkDescriptor w = matmul(chip.tiles.count, 64, 512, 512, MathPrecision::kBf16, 2);
    const TilePlan plan = policy.plan(w);
    const double in_per_tile =
        (w.stream_bytes.si() + w.activation_in_bytes.si()) / d(chip.tiles.count);
    const auto expected = static_cast<size_t>(std::ceil(in_per_tile / slot));
    REQUIRE(expected > 1);
    for (const auto& tile : plan.blocks_per_tile) CHECK(tile.size() == expected);
  }
  SECTION("huge work is capped at kMaxBlocksPerTile") {
    const WorkDescriptor w = matmul(chip.tiles.count, 64, 4096, 4096, MathPrecision::kBf16, 2);
    const TilePlan plan = policy.plan(w);
    const double in_per_tile =
        (w.stream_bytes.si() + w.activation_in_bytes.si()) / d(chip.tiles.count);
    REQUIRE(in_per_tile / slot > d(TilingPolicy::kMaxBlocksPerTile));
    for (const auto& tile : plan.blocks_per_tile) {
      CHECK(static_cast<int64_t>(tile.size()) == TilingPolicy::kMaxBlocksPerTile);
    }
    CHECK(plan.totals().hbm_read.si() == Approx(w.stream_bytes.si()).epsilon(kRel));
  }
}

TEST_CASE("tiling activation spill adds exactly the activations to HBM", "[models][tiling]") {
  const ChipParams roomy = small_chip();
  const std::vector<WorkDescriptor> shapes = {
      matmul(1, 512, 1024, 1024, MathPrecision::kBf16, 2),
      matmul(16, 64, 256, 128, MathPrecision::kFp8, 1),
      attention(3, 512, 512, 64, 0.5),
      vector_op(1e6, Bytes{}, Bytes{}, mib(1), mib(2)),
  };
  for (const WorkDescriptor& w : shapes) {
    INFO(describe(w));
    const Bytes footprint = w.activation_in_bytes + w.activation_out_bytes;
    ChipParams big = roomy;
    big.shared_sram.capacity = footprint * 2.0;
    ChipParams exact = roomy;
    exact.shared_sram.capacity = footprint;  // fits exactly: no spill
    ChipParams small = roomy;
    small.shared_sram.capacity = footprint * 0.5;
    const WorkBlock base = TilingPolicy(big).plan(w).totals();
    const WorkBlock fits = TilingPolicy(exact).plan(w).totals();
    const TilePlan spilled_plan = TilingPolicy(small).plan(w);
    check_structure(small, spilled_plan);
    const WorkBlock spilled = spilled_plan.totals();

    CHECK(base.hbm_read.si() == Approx(w.stream_bytes.si()).epsilon(kRel));
    CHECK(base.hbm_write.si() == Approx(w.hbm_write_bytes.si()).epsilon(kRel));
    CHECK(fits.hbm_read.si() == Approx(base.hbm_read.si()).epsilon(kRel));
    CHECK(fits.hbm_write.si() == Approx(base.hbm_write.si()).epsilon(kRel));
    CHECK(spilled.hbm_read.si() - base.hbm_read.si() ==
          Approx(w.activation_in_bytes.si()).epsilon(kRel));
    CHECK(spilled.hbm_write.si() - base.hbm_write.si() ==
          Approx(w.activation_out_bytes.si()).epsilon(kRel));
    // The spill changes where activations come from, not the work.
    CHECK(spilled.macs == Approx(base.macs).epsilon(kRel));
    CHECK(spilled.vector_flops == Approx(base.vector_flops).epsilon(kRel));
  }
}
