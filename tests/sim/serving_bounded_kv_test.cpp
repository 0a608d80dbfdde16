// Layers whose cache stops at a bound (sliding-window and chunked attention) in the serving
// layer's KV account: a sequence holds their part of its blocks only up to the bound, as vLLM's
// hybrid KV cache manager frees out-of-window blocks. Expected values are closed forms from the
// models' config.json numbers (cited in the model files), never read back from the code under test.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "models/kv/kv_block_manager.hpp"
#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/engine/serving_engines.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/serving/analytic_cost_model.hpp"
#include "sim/serving/continuous_batching_scheduler.hpp"
#include "sim/serving/pool_state_blocks.hpp"
#include "sim/serving/serving_config.hpp"
#include "tests/sim/serving_fixtures.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;
using namespace scoville::serving;

namespace {

constexpr int64_t kBlock = 16;

workloads::ModelConfig model(const std::string& name) {
  static const config::DataPaths paths = config::DataPaths::from_environment();
  return workloads::load_model(paths.resolve(name, "workloads/models"));
}

// GPT-OSS: every other layer slides over 128 tokens (config.json sliding_window 128,
// layer_types alternating).
const std::vector<models::BoundedKvLayers> kGptOssMix{{0.5, 128}};

ServingSystem one_pool(int64_t capacity_blocks, std::vector<models::BoundedKvLayers> bounded) {
  return test::kv_admission_pool({capacity_blocks, kBlock, 1, 0, std::move(bounded)});
}

}  // namespace

TEST_CASE("bounded KV layers: blocks are the sequence's bytes in block units",
          "[serving][kv][window]") {
  // No bounded layer: whole blocks of the context, as before.
  CHECK(models::kv_blocks_for_tokens(1000, kBlock, {}) == 63);  // ceil(1000 / 16)
  CHECK(models::kv_blocks_for_tokens(0, kBlock, {}) == 0);
  // GPT-OSS, 1,000 tokens: 0.5 x 1,000 + 0.5 x 128 = 564 token-blocks' worth, 35.25 -> 36.
  CHECK(models::kv_blocks_for_tokens(1000, kBlock, kGptOssMix) == 36);
  // Inside the window both halves hold every token: exactly 4 blocks for 64, not 5.
  CHECK(models::kv_blocks_for_tokens(64, kBlock, kGptOssMix) == 4);
  CHECK(models::kv_blocks_for_tokens(129, kBlock, kGptOssMix) == 9);  // 0.5 x 129 + 64 = 128.5
  // Llama 4 Maverick: three of every four layers keep one 8,192-token chunk.
  const std::vector<models::BoundedKvLayers> llama4{{0.75, 8192}};
  CHECK(models::kv_blocks_for_tokens(1000, kBlock, llama4) == 63);
  // 100,000 tokens: 0.25 x 100,000 + 0.75 x 8,192 = 31,144 -> 1,946.5 -> 1,947 blocks.
  CHECK(models::kv_blocks_for_tokens(100000, kBlock, llama4) == 1947);
}

TEST_CASE("bounded KV layers: the block manager grows a sequence by its unbounded part only",
          "[serving][kv][window]") {
  models::KvBlockManager kv(100, kBlock, 0, kGptOssMix);
  CHECK(kv.admit(1, 128));  // inside the window: 8 blocks
  CHECK(kv.free_blocks() == 92);
  CHECK(kv.grow(1, 32 * 3));  // 224 tokens: 0.5 x 224 + 64 = 176 -> 11 blocks
  CHECK(kv.free_blocks() == 89);
  kv.shrink(1, 128);
  CHECK(kv.free_blocks() == 92);
  kv.release(1);
  CHECK(kv.free_blocks() == 100);
  CHECK_THROWS(models::KvBlockManager(10, kBlock, 0, {{0.0, 128}}));
  CHECK_THROWS(models::KvBlockManager(10, kBlock, 0, {{0.5, 0}}));
  CHECK_THROWS(models::KvBlockManager(10, kBlock, 0, {{0.6, 128}, {0.6, 256}}));
}

TEST_CASE("bounded KV layers: the models' sliding and chunked layers", "[serving][kv][window]") {
  const std::vector<models::BoundedKvLayers> gpt_oss =
      pool_bounded_kv_layers(model("gpt-oss-120b"));
  REQUIRE(gpt_oss.size() == 1);
  CHECK(gpt_oss[0].share == Approx(0.5));  // 18 of 36 layers
  CHECK(gpt_oss[0].max_tokens == 128);
  const std::vector<models::BoundedKvLayers> maverick =
      pool_bounded_kv_layers(model("llama-4-maverick"));
  REQUIRE(maverick.size() == 1);
  CHECK(maverick[0].share == Approx(0.75));  // 36 of 48 layers
  CHECK(maverick[0].max_tokens == 8192);
  CHECK(pool_bounded_kv_layers(model("llama-3.1-8b")).empty());
}

TEST_CASE("bounded KV layers: a GPT-OSS pool holds about twice the long sequences",
          "[serving][kv][window]") {
  // 4,000 blocks and 64 prompts of 4,000 tokens arriving together, admitted with their prompts:
  // every layer keeping the context, each holds 4,000 / 16 = 250 blocks (16 fit); with half the
  // layers at 128 tokens, ceil((0.5 x 4,000 + 0.5 x 128) / 16) = 129 (31 fit).
  const AnalyticCostModel cost(test::cost_params());
  const auto concurrent = [&](std::vector<models::BoundedKvLayers> bounded) {
    const ServingTrace t = ContinuousBatchingScheduler(one_pool(4000, std::move(bounded)), cost)
                               .run(test::burst(64, 4000, 1), 1);
    return t.stats.pools[0].max_batch_sequences;
  };
  CHECK(concurrent({}) == 16);
  CHECK(concurrent(kGptOssMix) == 31);
}

TEST_CASE("bounded KV layers: a pool's bad shares are refused with their key",
          "[serving][kv][window]") {
  std::string why;
  try {
    validate(one_pool(100, {{1.5, 128}, {0.5, 0}}));
  } catch (const InputError& e) {
    why = e.what();
  }
  CHECK_THAT(why, Catch::Contains("bounded_kv_layers[0].share") &&
                      Catch::Contains("bounded_kv_layers[1].max_tokens"));
}

TEST_CASE("bounded KV layers: a disaggregated handoff moves what the prefill pool holds",
          "[serving][kv][window]") {
  constexpr double kBytesPerToken = 1000.0;
  const auto moved_bytes = [&](std::vector<models::BoundedKvLayers> bounded) {
    ServingSystem s;
    for (const PoolRole role : {PoolRole::kPrefill, PoolRole::kDecode}) {
      PoolConfig p = test::kv_admission_pool({100000, kBlock, 1, 0, bounded}).pools.front();
      p.name = role == PoolRole::kPrefill ? "prefill" : "decode";
      p.role = role;
      s.pools.push_back(p);
    }
    s.kv_bytes_per_token = bytes(kBytesPerToken);
    s.kv_transfer_time = [](const KvTransfer& t) { return seconds(1e-3 + t.bytes.si() / 1e11); };
    const AnalyticCostModel cost(test::cost_params());
    const ServingTrace t = ContinuousBatchingScheduler(s, cost).run(test::burst(1, 1000, 4), 1);
    REQUIRE(t.stats.kv_transfers == 1);
    return t.stats.kv_transfer_bytes.si();
  };
  const double whole = moved_bytes({});
  const double tokens = whole / kBytesPerToken;  // the context handed over
  REQUIRE(tokens >= 1000);
  // GPT-OSS's sliding half moves its last 128 tokens only.
  CHECK(moved_bytes(kGptOssMix) == Approx(kBytesPerToken * (0.5 * tokens + 0.5 * 128)));
}

TEST_CASE("bounded KV layers: a vLLM disaggregated deployment holds every layer's context",
          "[serving][kv][window]") {
  // vLLM turns its hybrid KV cache manager off once a KV connector joins two pools
  // (arch/software/vllm.yaml); colocated, and under TensorRT-LLM, the window is kept.
  const config::DataPaths paths{SCOVILLE_SOURCE_DIR};
  const workloads::ModelConfig gpt_oss = model("gpt-oss-120b");
  workloads::PoolMapping prefill;
  prefill.pool = "prefill";
  prefill.chips = 1;
  workloads::PoolMapping decode = prefill;
  decode.pool = "decode";
  const workloads::MappingConfig split{{prefill, decode}};
  const workloads::MappingConfig colocated{{prefill}};
  const SchedulerConfig scheduler;
  const std::vector<models::BoundedKvLayers> window{{0.5, 128}};
  const auto layers = [&](const std::string& stack, const workloads::MappingConfig& mapping) {
    const engine::ServingHardware hw =
        engine::resolve_hardware("h200", paths.resolve("h200-hgx8", "arch/systems"), 2, stack);
    std::vector<std::vector<models::BoundedKvLayers>> out;
    for (const PoolConfig& p : engine::make_engine(hw, gpt_oss, mapping, scheduler).system.pools) {
      out.push_back(p.bounded_kv_layers);
    }
    return out;
  };
  const auto same = [](const std::vector<models::BoundedKvLayers>& a,
                       const std::vector<models::BoundedKvLayers>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].share != b[i].share || a[i].max_tokens != b[i].max_tokens) return false;
    }
    return true;
  };
  const auto vllm_split = layers("vllm", split);
  REQUIRE(vllm_split.size() == 2);
  CHECK(vllm_split[0].empty());
  CHECK(vllm_split[1].empty());
  const auto vllm_one = layers("vllm", colocated);
  REQUIRE(vllm_one.size() == 1);
  CHECK(same(vllm_one[0], window));
  const auto trt_split = layers("tensorrt-llm", split);
  REQUIRE(trt_split.size() == 2);
  CHECK(same(trt_split[0], window));
  CHECK(same(trt_split[1], window));
  CHECK(config::load_software("vllm", paths).disaggregated_kv_whole_context);
  CHECK(config::load_software("rocm-vllm", paths).disaggregated_kv_whole_context);
  CHECK_FALSE(config::load_software("tensorrt-llm", paths).disaggregated_kv_whole_context);
}
