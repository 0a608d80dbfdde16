// The scheduler's policies (sim/serving/scheduling_policy.hpp): chosen by name from registries
// that list what exists and refuse an unknown name, and each changing what an iteration serves.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/serving/analytic_cost_model.hpp"
#include "sim/serving/continuous_batching_scheduler.hpp"
#include "sim/serving/draft_speculation.hpp"
#include "sim/serving/scheduling_policy.hpp"
#include "sim/serving/serving_run.hpp"
#include "tests/sim/serving_fixtures.hpp"

using namespace scoville;
using namespace scoville::serving;
using scoville::serving::test::cost_params;
using scoville::serving::test::RecordingCostModel;

namespace {

ServingScenario busy_pool(const std::string& policy) {
  ServingScenario s;
  s.workload.kind = workloads::ArrivalKind::kClosedLoop;
  s.workload.concurrency = 8;
  s.workload.num_prompts = 32;
  s.workload.lengths = {1500, 40, 0.8};
  PoolConfig p;
  p.name = "colocated";
  p.role = PoolRole::kColocated;
  p.chips = 8;
  p.scheduler.max_num_batched_tokens = 2048;
  p.scheduler.policy = policy;
  s.system.pools.push_back(p);
  return s;
}

std::string first_error(const ServingScenario& s) {
  try {
    validate(s);
  } catch (const InputError& e) {
    return e.diagnostics().front().str();
  }
  return "";
}

}  // namespace

TEST_CASE("policy registries list what exists and refuse an unknown name", "[serving][policy]") {
  CHECK(batching_policy_names() == std::vector<std::string>{"fcfs", "prefill-first"});
  CHECK(handoff_policy_names() ==
        std::vector<std::string>{"queue-at-decode", "reserve-decode-slot"});
  CHECK(make_batching_policy("prefill-first")->name() == "prefill-first");
  CHECK(make_handoff_policy("reserve-decode-slot")->reserves_decode_slot());
  CHECK_FALSE(make_handoff_policy("queue-at-decode")->reserves_decode_slot());
  CHECK_THROWS_AS(make_batching_policy("lifo"), std::out_of_range);

  ServingScenario bad = busy_pool("decode-first");
  const std::string message = first_error(bad);
  CHECK(message.find("system.pools[0].policy") != std::string::npos);
  CHECK(message.find("expected fcfs or prefill-first, found 'decode-first'") != std::string::npos);
  ServingScenario bad_handoff = busy_pool("fcfs");
  bad_handoff.system.handoff = "eager";
  CHECK(first_error(bad_handoff).find("system.handoff") != std::string::npos);
}

TEST_CASE("prefill-first runs prompts alone and trades token gaps for first tokens",
          "[serving][policy]") {
  const AnalyticCostModel model(cost_params());
  RecordingCostModel fcfs_costs(model), prefill_costs(model);
  const ServingResult fcfs = run_serving(busy_pool("fcfs"), fcfs_costs, 3);
  const ServingResult prefill_first = run_serving(busy_pool("prefill-first"), prefill_costs, 3);
  REQUIRE(fcfs.metrics.completed == 32);
  REQUIRE(prefill_first.metrics.completed == 32);
  auto mixed_batches = [](const std::vector<IterationBatch>& batches) {
    int mixed = 0;
    for (const IterationBatch& b : batches) {
      if (b.prefill_tokens() > 0 && b.decode_tokens() > 0) ++mixed;
    }
    return mixed;
  };
  // FCFS mixes prompt chunks into decode batches; prefill-first never does here (the KV is
  // plentiful, so a waiting prompt can always start and no fallback iteration is needed).
  CHECK(mixed_batches(fcfs_costs.batches) > 10);
  CHECK(mixed_batches(prefill_costs.batches) == 0);
  // Decodes wait for prompts: longer worst token gaps, shorter time to first token.
  CHECK(prefill_first.metrics.tpot_ms.p99 > fcfs.metrics.tpot_ms.p99);
  CHECK(prefill_first.metrics.ttft_ms.median < fcfs.metrics.ttft_ms.median);
}

TEST_CASE("prefill-first never stalls a pool whose waiting prompts cannot start",
          "[serving][policy]") {
  // A KV capacity that admits about one request at a time: waiting prompts exist but cannot be
  // admitted, so the iteration serves the running decodes instead of nothing.
  const AnalyticCostModel model(cost_params());
  ServingScenario s = busy_pool("prefill-first");
  s.system.pools[0].kv_capacity_blocks = (1500 + 40) / 16 + 8;
  const ServingResult r = run_serving(s, model, 3);
  CHECK(r.metrics.completed == 32);
}

TEST_CASE("prefix caching skips the cached share of each prompt, in whole KV blocks",
          "[serving][prefix]") {
  const AnalyticCostModel model(cost_params());
  ServingScenario plain = busy_pool("fcfs");
  ServingScenario cached = plain;
  cached.system.pools[0].scheduler.prefix_caching = true;
  cached.system.pools[0].scheduler.prefix_hit_rate = 0.5;
  RecordingCostModel plain_costs(model), cached_costs(model);
  const ServingResult a = run_serving(plain, plain_costs, 3);
  const ServingResult b = run_serving(cached, cached_costs, 3);
  REQUIRE(a.metrics.completed == b.metrics.completed);
  CHECK(a.metrics.prefix_cache_hit_rate == 0.0);
  // Half of each prompt, rounded down to 16-token blocks: a little under 0.5.
  CHECK(b.metrics.prefix_cache_hit_rate > 0.47);
  CHECK(b.metrics.prefix_cache_hit_rate <= 0.5);
  auto prefill_tokens = [](const std::vector<IterationBatch>& batches) {
    int64_t n = 0;
    for (const IterationBatch& x : batches) n += x.prefill_tokens();
    return n;
  };
  const double computed = static_cast<double>(prefill_tokens(cached_costs.batches));
  const double all = static_cast<double>(prefill_tokens(plain_costs.batches));
  CHECK(computed / all == Approx(1.0 - b.metrics.prefix_cache_hit_rate).epsilon(0.01));
  // A prompt chunk starts after its cached prefix: the first chunk of a request attends to it.
  bool starts_after_cache = false;
  for (const IterationBatch& x : cached_costs.batches) {
    for (const SequenceWork& w : x.sequences) {
      if (w.phase == SequencePhase::kPrefill && w.context_before > 0 &&
          w.context_before % 16 == 0) {
        starts_after_cache = true;
      }
    }
  }
  CHECK(starts_after_cache);
  CHECK(b.metrics.ttft_ms.median < a.metrics.ttft_ms.median);
}

TEST_CASE("prefix caching with trace prefix blocks hits only on blocks prefilled before",
          "[serving][prefix]") {
  const AnalyticCostModel model(cost_params());
  ServingScenario s = busy_pool("fcfs");
  s.system.pools[0].scheduler.prefix_caching = true;
  workloads::RequestPlan plan;
  // Two requests sharing their first two 512-token blocks, the second sent after the first
  // finished; a third with a block nobody prefilled.
  for (int i = 0; i < 3; ++i) {
    workloads::Request r;
    r.id = i;
    r.input_tokens = 1536;
    r.output_tokens = 4;
    r.arrival = seconds(10.0 * i);
    r.prefix_blocks = i < 2 ? std::vector<int64_t>{7, 8, 9 + i} : std::vector<int64_t>{99, 7};
    plan.requests.push_back(r);
  }
  const ServingTrace t = ContinuousBatchingScheduler(s.system, model).run(plan, 1);
  REQUIRE(t.stats.pools[0].admitted_prompt_tokens == 3 * 1536);
  // Only the second request hits, on blocks 7 and 8 (the third's first block is new).
  CHECK(t.stats.pools[0].prefix_hit_tokens == 1024);
  CHECK(t.records[1].ttft() < t.records[0].ttft());
}

TEST_CASE("draft-model speculation adds the draft's prefill and depth decode passes",
          "[serving][speculation]") {
  const AnalyticCostParams target_params = cost_params();
  AnalyticCostParams draft_params = cost_params();
  draft_params.fixed = target_params.fixed * 0.25;
  draft_params.prefill_token_time = target_params.prefill_token_time * 0.1;
  draft_params.decode_sequence_time = target_params.decode_sequence_time * 0.1;
  const AnalyticCostModel target(target_params), draft(draft_params);
  const int64_t depth = 3;
  const DraftSpeculationCostModel spec(std::make_unique<AnalyticCostModel>(target_params),
                                       std::make_unique<AnalyticCostModel>(draft_params), depth);
  IterationBatch batch;
  SequenceWork prompt;
  prompt.phase = SequencePhase::kPrefill;
  prompt.new_tokens = 100;
  prompt.context_before = 0;
  prompt.context_after = 100;
  SequenceWork step;
  step.phase = SequencePhase::kDecode;
  step.new_tokens = depth + 1;
  step.context_before = 500;
  step.context_after = 504;
  batch.sequences = {prompt, step};
  // The draft: pass 0 prefills the chunk and drafts once (context 500); passes 1 and 2 draft at
  // contexts 501 and 502.
  double expected = target.cost(batch).time.si();
  for (int64_t pass = 0; pass < depth; ++pass) {
    IterationBatch b;
    SequenceWork d = step;
    d.new_tokens = 1;
    d.context_before = 500 + pass;
    d.context_after = d.context_before + 1;
    b.sequences = pass == 0 ? std::vector<SequenceWork>{prompt, d} : std::vector<SequenceWork>{d};
    expected += draft.cost(b).time.si();
  }
  const IterationCost c = spec.cost(batch);
  CHECK(c.time.si() == Approx(expected));
  CHECK(c.time > target.cost(batch).time);
  CHECK(c.breakdown.back().first == "draft model");
  CHECK_THROWS_AS(DraftSpeculationCostModel(std::make_unique<AnalyticCostModel>(target_params),
                                            std::make_unique<AnalyticCostModel>(draft_params), 0),
                  std::invalid_argument);
}
