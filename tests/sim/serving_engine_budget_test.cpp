// engine::make_engine (sim/cli/serving_common): the scheduler's token budget is per attention-DP
// rank, as vLLM's and SGLang's data-parallel attention run one scheduler per rank; `serve` and
// `inferencex` both build their pools through it.
#include <catch2/catch.hpp>

#include "sim/config/data_paths.hpp"
#include "sim/engine/serving_engines.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/output/serving_points_output.hpp"
#include "sim/serving/serving_point.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;

TEST_CASE("serving engine: the token budget is per attention-DP rank", "[serving]") {
  const config::DataPaths paths{SCOVILLE_SOURCE_DIR};
  const workloads::ModelConfig model =
      workloads::load_model(paths.resolve("gpt-oss-120b", "workloads/models"));
  const engine::ServingHardware hw = engine::resolve_hardware("h200", "", 8, "", false);
  serving::SchedulerConfig scheduler;
  scheduler.max_num_batched_tokens = 4096;
  for (const int64_t attn_dp : {1, 4, 8}) {
    INFO("attn_dp " << attn_dp);
    workloads::PoolMapping pool;
    pool.chips = 8;
    pool.degrees.tp = 8;
    pool.degrees.ep = 8;
    pool.degrees.attn_dp = attn_dp;
    const engine::ServingEngine engine =
        engine::make_engine(hw, model, workloads::MappingConfig{{pool}}, scheduler);
    REQUIRE(engine.system.pools.size() == 1);
    CHECK(engine.system.pools.front().attention_dp == attn_dp);
    CHECK(engine.system.pools.front().scheduler.max_num_batched_tokens == 4096 * attn_dp);
  }
}
