#include "sim/engine/serving_engines.hpp"

#include <algorithm>

#include "models/power/power_accounting.hpp"
#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/engine/system_cost_model.hpp"
#include "sim/serving/draft_speculation.hpp"
#include "sim/serving/pool_state_blocks.hpp"
#include "sim/serving/roofline_cost_model.hpp"

namespace scoville::engine {

namespace {

serving::PoolConfig pool_config(const ServingHardware& hw, const workloads::ModelConfig& model,
                                const workloads::PoolMapping& mapping, serving::PoolRole role,
                                const serving::SchedulerConfig& scheduler) {
  serving::PoolConfig p;
  p.name = mapping.pool;
  p.role = role;
  p.chips = mapping.chips;
  p.attention_dp = mapping.degrees.attn_dp;
  p.scheduler = scheduler;
  // The token budget is per attention-DP rank: vLLM's and SGLang's data-parallel attention run
  // one scheduler (and budget) per rank; one budget for the pool would starve wide attention-DP
  // pools of prefill (docs/serving.md).
  p.scheduler.max_num_batched_tokens = scheduler.max_num_batched_tokens * mapping.degrees.attn_dp;
  std::optional<Bytes> kv_memory;  // remote_pool: the host's memory holds the KV
  if (hw.kv_placement == "remote_pool") kv_memory = hw.host->per_chip_capacity();
  p.kv_capacity_blocks =
      std::max<int64_t>(1, serving::pool_kv_capacity_blocks(model, hw.chip, mapping,
                                                            scheduler.kv_block_tokens, kv_memory));
  // A linear-attention state per sequence, in the same blocks. With remote_pool only the
  // attention KV leaves HBM (docs/modelling.md): the state is not in the remote blocks' account.
  if (!kv_memory) {
    p.state_blocks_per_sequence =
        serving::pool_state_blocks_per_sequence(model, hw.chip, mapping, scheduler.kv_block_tokens);
  }
  // Sliding-window and chunked layers keep only their window, unless the stack holds every
  // layer's whole context once a KV connector joins a prefill and a decode pool.
  if (role == serving::PoolRole::kColocated || !hw.software.disaggregated_kv_whole_context) {
    p.bounded_kv_layers = serving::pool_bounded_kv_layers(model);
  }
  // The chip's cap controller throttles the pool's iterations (sim/serving/serving_power), and
  // the pool draws the chip's idle power while it has no work (docs/power.md).
  const models::PowerManagementParams& pm = hw.chip.power.management;
  p.power.managed = pm.present;
  p.power.management = pm;
  p.power.static_per_chip = hw.chip.power.static_power;
  p.idle_power_per_chip = models::idle_power(hw.chip.power.static_power, pm);
  return p;
}

}  // namespace

ServingEngine make_engine(const ServingHardware& hw, const workloads::ModelConfig& model,
                          const workloads::MappingConfig& mapping,
                          const serving::SchedulerConfig& scheduler,
                          const workloads::ModelConfig* draft) {
  ServingEngine engine;
  std::vector<workloads::PoolMapping> pools = mapping.pools;
  // Disaggregated: prefill first, then decode (ServingSystem's order).
  std::sort(pools.begin(), pools.end(), [](const auto& a, const auto& b) {
    return (a.pool == "prefill" ? 0 : 1) < (b.pool == "prefill" ? 0 : 1);
  });
  serving::RooflineOptions options;
  options.op_cost = hw.op_cost;
  options.kv_placement = hw.kv_placement;
  options.kv_block_tokens = scheduler.kv_block_tokens;
  options.host = hw.host;
  auto roofline = std::make_unique<serving::RooflineCostModel>(model, hw.chip, pools, hw.network,
                                                               hw.software, options, hw.efficiency);
  const bool disaggregated = pools.size() == 2;
  for (size_t i = 0; i < pools.size(); ++i) {
    const serving::PoolRole role = !disaggregated ? serving::PoolRole::kColocated
                                   : i == 0       ? serving::PoolRole::kPrefill
                                                  : serving::PoolRole::kDecode;
    engine.system.pools.push_back(pool_config(hw, model, pools[i], role, scheduler));
  }
  engine.system.kv_bytes_per_token = model.kv_bytes_per_token();
  engine.system.state_bytes_per_sequence = model.state_bytes_per_sequence();
  engine.system.handoff = scheduler.handoff;
  if (disaggregated) {
    // The pools sit on consecutive chips of the system, prefill first (unless a pool names its
    // first chip); the request's KV moves between them as the disaggregated placement sends it.
    const serving::RooflineCostModel* cost = roofline.get();
    const std::vector<int64_t> first = workloads::pool_first_chips(pools);
    const models::ChipSpan prefill{first[0], pools[0].chips};
    const models::ChipSpan decode{first[1], pools[1].chips};
    if (hw.network && decode.first + decode.count > hw.network->endpoints()) {
      throw InputError(pools[1].where, "chips",
                       "the prefill and decode pools need " +
                           std::to_string(decode.first + decode.count) + " chips but '" +
                           hw.system_name + "' has " + std::to_string(hw.network->endpoints()));
    }
    // The stack's control path of a handoff (notification, transfer setup) adds to the bytes'
    // network time.
    const Duration control = hw.software.per_kv_transfer;
    engine.system.kv_transfer_time = [cost, prefill, decode,
                                      control](const serving::KvTransfer& t) {
      return cost->kv_handoff_time(t.bytes, prefill, decode) + control;
    };
  }
  if (draft != nullptr) {
    if (scheduler.mtp.depth < 1) {
      throw InputError(SourceLocation{"<command line>", 0, 0}, "mtp.depth",
                       "a draft model proposes mtp.depth tokens per step: expected at least 1");
    }
    auto draft_cost = std::make_unique<serving::RooflineCostModel>(
        *draft, hw.chip, pools, hw.network, hw.software, options, hw.efficiency);
    engine.cost = std::make_unique<serving::DraftSpeculationCostModel>(
        std::move(roofline), std::move(draft_cost), scheduler.mtp.depth);
    return engine;
  }
  engine.cost = std::move(roofline);
  return engine;
}

ServingEngine make_cycle_engine(const ServingHardware& hw, const std::string& system,
                                const workloads::ModelConfig& model,
                                const workloads::PoolMapping& pool,
                                const serving::SchedulerConfig& scheduler) {
  const config::DataPaths paths = config::DataPaths::from_environment();
  const config::SystemConfig system_config = config::load_system(system, paths);
  if (pool.degrees.dp != 1) {
    throw InputError(pool.where, "dp",
                     "the serving layer runs one engine per pool: expected dp = 1, found " +
                         std::to_string(pool.degrees.dp));
  }
  if (pool.chips > system_config.chips) {
    throw InputError(pool.where, "chips",
                     "the mapping needs " + std::to_string(pool.chips) + " chips but '" +
                         system_config.name + "' has " + std::to_string(system_config.chips));
  }
  ServingEngine engine;
  // Capacity first: it checks that the weights fit before SystemC elaborates anything.
  engine.system.pools.push_back(
      pool_config(hw, model, pool, serving::PoolRole::kColocated, scheduler));
  engine.system.kv_bytes_per_token = model.kv_bytes_per_token();
  engine.system.state_bytes_per_sequence = model.state_bytes_per_sequence();
  // hw.chip is the system file's chip unless --chip overrode it, as for the roofline.
  config::SoftwareProfile software;
  software.name = hw.software_name;
  software.per_op_launch = hw.software.per_op_launch;
  software.per_layer_sync = hw.software.per_layer_sync;
  software.per_iteration = hw.software.per_iteration;
  software.per_collective = hw.software.per_collective;
  software.per_all_to_all = hw.software.per_all_to_all;
  software.per_sequence = hw.software.per_sequence;
  software.per_kv_transfer = hw.software.per_kv_transfer;
  software.fused_vector_ops = hw.software.fused_vector_ops;
  software.top_p_sorts_vocabulary = hw.software.top_p_sorts_vocabulary;
  software.disaggregated_kv_whole_context = hw.software.disaggregated_kv_whole_context;
  engine::SystemSetup setup{system_config, hw.chip, model, pool, software, {}};
  setup.options.kv_placement = hw.kv_placement;
  setup.options.kv_block_tokens = scheduler.kv_block_tokens;
  engine.cost = std::make_unique<engine::SystemCostModel>(std::move(setup));
  return engine;
}

}  // namespace scoville::engine
