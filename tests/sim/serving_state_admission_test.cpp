// Per-sequence state in the serving layer's KV admission: a linear-attention model's recurrent
// state (Qwen3-Next) takes blocks of the KV account per admitted sequence, as the memory
// footprint holds it; DSA's indexer keys (DeepSeek V3.2) are per token and sit in the per-token
// KV bytes. Expected values are closed forms from the models' config.json numbers (cited in the
// model files), never read back from the code under test.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "models/kv/kv_block_manager.hpp"
#include "sim/base/error.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/serving/analytic_cost_model.hpp"
#include "sim/serving/continuous_batching_scheduler.hpp"
#include "sim/serving/pool_state_blocks.hpp"
#include "sim/serving/roofline_cost_model.hpp"
#include "tests/sim/serving_fixtures.hpp"
#include "workloads/mapping/map_iteration.hpp"
#include "workloads/mapping/memory_footprint.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;
using namespace scoville::serving;

namespace {

constexpr int64_t kBlock = 16;

const config::DataPaths& paths() {
  static const config::DataPaths p = config::DataPaths::from_environment();
  return p;
}

workloads::ModelConfig model(const std::string& name) {
  return workloads::load_model(paths().resolve(name, "workloads/models"));
}

workloads::PoolMapping tp(int64_t degree) {
  workloads::PoolMapping p;
  p.chips = degree;
  p.degrees.tp = degree;
  return p;
}

// Qwen3-Next 80B-A3B config.json: 12 full layers (2 KV heads of 256, BF16 cache) and 36 Gated
// DeltaNet layers (32 value heads of a 128 x 128 state, a conv of kernel 4 over 2 x 2048 + 4096
// channels), all state in BF16 as the cache.
double qwen3_next_state_bytes_per_chip(int64_t tp) {
  const double state_values = 32.0 * 128 * 128 + (2.0 * 16 * 128 + 32 * 128) * 3;
  return 36.0 * state_values * 2.0 / double(tp);
}
double qwen3_next_kv_bytes_per_token_per_chip(int64_t tp) {
  const double kv_heads_here = std::max(1.0, 2.0 / double(tp));
  return 12.0 * 2.0 * kv_heads_here * 256 * 2.0;
}

ServingSystem one_pool(int64_t capacity_blocks, int64_t state_blocks) {
  return test::kv_admission_pool({capacity_blocks, kBlock, 2, state_blocks, {}});
}

}  // namespace

TEST_CASE("KV blocks: a sequence's fixed blocks are taken, evicted and freed with it",
          "[serving][kv][state]") {
  models::KvBlockManager kv(100, kBlock, 10);
  CHECK(kv.admit(1, kBlock));  // one token block and ten state blocks
  CHECK(kv.free_blocks() == 89);
  CHECK(kv.grow(1, 1));  // a second token block; the state does not grow
  CHECK(kv.free_blocks() == 88);
  int admitted = 1;
  for (int64_t s = 2; kv.admit(s, kBlock); ++s) ++admitted;
  CHECK(admitted == 1 + 88 / 11);  // 11 blocks each
  // Growing the oldest by ten token blocks evicts the youngest, whose state blocks come back too
  // (it frees 11: one left over).
  std::vector<int64_t> evicted;
  kv.on_evict = [&](int64_t s) { evicted.push_back(s); };
  REQUIRE(kv.free_blocks() == 0);
  REQUIRE(kv.grow(1, 10 * kBlock));
  CHECK(evicted == std::vector<int64_t>{int64_t(admitted)});
  CHECK(kv.free_blocks() == 1);
  // Releasing the oldest frees its 12 token blocks and its 10 state blocks.
  kv.release(1);
  CHECK(kv.free_blocks() == 1 + 12 + 10);
  CHECK_THROWS(models::KvBlockManager(10, kBlock, -1));
}

TEST_CASE("qwen3-next: each sequence's recurrent state is counted in KV blocks",
          "[serving][kv][state]") {
  const workloads::ModelConfig m = model("qwen3-next-80b-a3b");
  const models::ChipParams chip = config::load_chip("h200", paths());
  for (int64_t degree : {int64_t{2}, int64_t{4}}) {
    INFO("tp " << degree);
    const double block_bytes = qwen3_next_kv_bytes_per_token_per_chip(degree) * kBlock;
    const auto expected = int64_t(std::ceil(qwen3_next_state_bytes_per_chip(degree) / block_bytes));
    CHECK(pool_state_blocks_per_sequence(m, chip, tp(degree), kBlock) == expected);
  }
  // TP 2: 19.76 MB of state per chip against 196,608 B per block: 101 blocks, the KV of 1,616
  // tokens of context.
  CHECK(pool_state_blocks_per_sequence(m, chip, tp(2), kBlock) == 101);
}

TEST_CASE("qwen3-next: admission fits fewer sequences than a pure-KV count, by the state",
          "[serving][kv][state]") {
  const workloads::ModelConfig m = model("qwen3-next-80b-a3b");
  const models::ChipParams chip = config::load_chip("h200", paths());
  const int64_t state = pool_state_blocks_per_sequence(m, chip, tp(2), kBlock);
  REQUIRE(state > 0);
  // A pool of 2,000 blocks and 64 requests of 1,000 + 1 tokens arriving together: each holds
  // ceil(1001 / 16) = 63 token blocks, and `state` blocks more with its state.
  const int64_t capacity = 2000, input = 1000, per_sequence = (input + 1 + kBlock - 1) / kBlock;
  const AnalyticCostModel cost(test::cost_params());
  const auto concurrent = [&](int64_t state_blocks) {
    const ServingTrace t = ContinuousBatchingScheduler(one_pool(capacity, state_blocks), cost)
                               .run(test::burst(64, input, 1), 1);
    return t.stats.pools[0].max_batch_sequences;
  };
  const int64_t pure_kv = concurrent(0);
  const int64_t with_state = concurrent(state);
  CHECK(pure_kv == capacity / per_sequence);               // 31
  CHECK(with_state == capacity / (per_sequence + state));  // 12
  CHECK(with_state < pure_kv);
}

TEST_CASE("a request whose KV and state exceed the pool is refused, naming the state",
          "[serving][kv][state]") {
  const AnalyticCostModel cost(test::cost_params());
  std::string why;
  try {
    ContinuousBatchingScheduler(one_pool(100, 90), cost).run(test::burst(1, 15 * kBlock, 1), 1);
  } catch (const InputError& e) {
    why = e.what();
  }
  CHECK_THAT(why, Catch::Contains("106 KV blocks") &&
                      Catch::Contains("90 of them for its recurrent state"));
}

TEST_CASE("deepseek-v3.2: the indexer keys are in the per-token blocks, no state blocks",
          "[serving][kv][dsa]") {
  const workloads::ModelConfig v32 = model("deepseek-v3.2");
  const models::ChipParams chip = config::load_chip("h200", paths());
  CHECK(pool_state_blocks_per_sequence(v32, chip, tp(8), kBlock) == 0);
  // Per token and layer, on every chip (one latent shared by all heads): FlashMLA's FP8 sparse
  // entry (512 FP8 latent values, 4 float32 scales, 64 BF16 RoPE values: 656 B) and the
  // indexer's FP8 key with its float32 scale (132 B), over 61 layers.
  const double per_token = 61.0 * (656.0 + 132.0);
  const workloads::MappedIteration mapped = workloads::map_iteration(
      v32, workloads::IterationShape{workloads::Phase::kDecode, 1, 1, 1}, tp(8));
  const std::vector<workloads::MemoryFootprint> f =
      workloads::memory_footprint(v32, mapped, chip.hbm.capacity);
  REQUIRE(f.size() == 1);
  CHECK(f[0].kv_bytes_per_token.si() == Approx(per_token));
  const auto tokens = int64_t(std::floor(f[0].kv_capacity.si() / per_token));
  CHECK(pool_kv_capacity_blocks(v32, chip, tp(8), kBlock) == tokens / kBlock);
}
