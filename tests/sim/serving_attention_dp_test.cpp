// Attention-DP scheduling and the KvBlockManager-driven KV accounting of the continuous-batching
// scheduler: rank assignment, KV capacity per rank, the iteration priced by its most loaded rank,
// preemption within a rank, and the throughput attention-DP buys when the KV cache is the limit.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/serving/analytic_cost_model.hpp"
#include "sim/serving/continuous_batching_scheduler.hpp"
#include "sim/serving/serving_run.hpp"
#include "tests/sim/serving_fixtures.hpp"

using namespace scoville;
using namespace scoville::serving;
using scoville::serving::test::cost_params;
using scoville::serving::test::RecordingCostModel;
using scoville::workloads::ArrivalKind;
using scoville::workloads::Request;
using scoville::workloads::RequestPlan;

namespace {

constexpr int64_t kBlock = 16;

ServingSystem pool_system(int64_t attention_dp, int64_t capacity_blocks) {
  PoolConfig p;
  p.name = "colocated";
  p.chips = 8;
  p.attention_dp = attention_dp;
  p.kv_capacity_blocks = capacity_blocks;
  p.scheduler.max_num_seqs = 1024;
  p.scheduler.max_num_batched_tokens = 8192;
  p.scheduler.kv_block_tokens = kBlock;
  ServingSystem s;
  s.pools.push_back(p);
  return s;
}

RequestPlan at_once(const std::vector<int64_t>& inputs, int64_t output) {
  RequestPlan plan;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Request r;
    r.id = static_cast<int64_t>(i);
    r.input_tokens = inputs[i];
    r.output_tokens = output;
    plan.requests.push_back(r);
  }
  return plan;
}

int64_t blocks(int64_t tokens) { return (tokens + kBlock - 1) / kBlock; }

// The prompt lengths of a batch's prefill work, in order.
std::vector<int64_t> prefills(const IterationBatch& b) {
  std::vector<int64_t> out;
  for (const SequenceWork& w : b.sequences) {
    if (w.phase == SequencePhase::kPrefill) out.push_back(w.new_tokens);
  }
  return out;
}

// The tokens a batch computes on each of `ranks` attention-DP ranks.
std::vector<int64_t> tokens_per_rank(const IterationBatch& b, int64_t ranks) {
  std::vector<int64_t> out(static_cast<size_t>(ranks), 0);
  for (const SequenceWork& w : b.sequences) out[static_cast<size_t>(w.rank)] += w.new_tokens;
  return out;
}

}  // namespace

TEST_CASE("attention-DP: sequences join the least loaded rank, deterministically",
          "[serving][attention_dp]") {
  const AnalyticCostModel base(cost_params());
  RecordingCostModel model(base);
  const std::vector<int64_t> inputs{100, 200, 300, 400};
  ContinuousBatchingScheduler(pool_system(2, 1000), model).run(at_once(inputs, 2), 1);
  // The rule applied by hand, in admission order: the rank with fewer blocks in use, the lower
  // index on a tie (sequence counts tie too here).
  std::vector<int64_t> used(2, 0);
  std::vector<int64_t> expected;
  for (int64_t in : inputs) {
    const int64_t r = used[1] < used[0] ? 1 : 0;
    used[static_cast<size_t>(r)] += blocks(in);
    expected.push_back(r);
  }
  REQUIRE(expected == std::vector<int64_t>{0, 1, 0, 1});
  // The first iteration prefills all four, each tagged with its rank.
  REQUIRE(!model.batches.empty());
  const IterationBatch& first = model.batches.front();
  CHECK(first.attention_dp == 2);
  REQUIRE(prefills(first) == inputs);
  for (size_t i = 0; i < inputs.size(); ++i) CHECK(first.sequences[i].rank == expected[i]);
  // Same inputs, same batches and ranks.
  RecordingCostModel again(base);
  ContinuousBatchingScheduler(pool_system(2, 1000), again).run(at_once(inputs, 2), 1);
  REQUIRE(again.batches.size() == model.batches.size());
  for (size_t i = 0; i < model.batches.size(); ++i) {
    REQUIRE(again.batches[i].sequences.size() == model.batches[i].sequences.size());
    for (size_t j = 0; j < model.batches[i].sequences.size(); ++j) {
      CHECK(again.batches[i].sequences[j].rank == model.batches[i].sequences[j].rank);
    }
  }
}

TEST_CASE("attention-DP: the iteration waits for its most loaded rank's attention",
          "[serving][attention_dp]") {
  const AnalyticCostParams p = cost_params();
  const AnalyticCostModel model(p);
  const std::vector<int64_t> inputs{100, 200, 300, 400};
  const ServingTrace t =
      ContinuousBatchingScheduler(pool_system(2, 1000), model).run(at_once(inputs, 2), 1);
  // Every prompt's first token comes at the end of the first iteration: all 1000 prompt tokens
  // computed, and the KV term of rank 1 (200 + 400 tokens) on half the chips.
  const double first = p.fixed.si() + p.prefill_token_time.si() * 1000.0 +
                       p.kv_token_time.si() * 2.0 * (200.0 + 400.0);
  for (const RequestRecord& r : t.records) CHECK(r.first_token.si() == Approx(first));
  // Without attention-DP the KV term is the whole batch's on all chips.
  const ServingTrace one =
      ContinuousBatchingScheduler(pool_system(1, 1000), model).run(at_once(inputs, 2), 1);
  CHECK(one.records[0].first_token.si() ==
        Approx(p.fixed.si() + p.prefill_token_time.si() * 1000.0 + p.kv_token_time.si() * 1000.0));
}

TEST_CASE("attention-DP: each rank holds capacity / attention_dp blocks",
          "[serving][attention_dp]") {
  const AnalyticCostModel model(cost_params());
  // 20 blocks over 2 ranks: 10 each. A request needing 11 fits the pool but no rank.
  const int64_t input = 11 * kBlock - 1;  // 11 blocks with its one output token
  std::string why;
  try {
    ContinuousBatchingScheduler(pool_system(2, 20), model).run(at_once({input}, 1), 1);
  } catch (const InputError& e) {
    why = e.what();
  }
  CHECK_THAT(why, Catch::Contains("per rank"));
  CHECK_NOTHROW(ContinuousBatchingScheduler(pool_system(1, 20), model).run(at_once({input}, 1), 1));
  // Two 10-block requests fill both ranks at once; a third waits for one to finish.
  RecordingCostModel rec(model);
  const int64_t ten = 10 * kBlock - 1;
  const ServingTrace t =
      ContinuousBatchingScheduler(pool_system(2, 20), rec).run(at_once({ten, ten, ten}, 1), 1);
  CHECK(t.records[0].first_token == t.records[1].first_token);
  CHECK(t.records[2].first_token > t.records[0].finished);
  CHECK(t.stats.pools[0].preemptions == 0);
}

TEST_CASE("attention-DP: a rank short of KV preempts its own youngest sequence",
          "[serving][attention_dp]") {
  const AnalyticCostModel model(cost_params());
  ServingScenario s;
  s.workload.kind = ArrivalKind::kClosedLoop;
  s.workload.concurrency = 16;
  s.workload.lengths = {200, 200, 0.8};
  s.system = pool_system(2, 60);  // 30 blocks per rank; one request needs up to 25
  const ServingResult r = run_serving(s, model, 4);
  const PoolStats& stats = r.trace.stats.pools[0];
  CHECK(stats.preemptions > 0);
  CHECK(stats.wasted_tokens > 0);
  int64_t preempted = 0;
  for (const RequestRecord& rec : r.trace.records) {
    preempted += rec.preemptions;
    CHECK(rec.itl.size() + 1 == static_cast<size_t>(rec.output_tokens));
  }
  CHECK(preempted == stats.preemptions);
  CHECK(r.metrics.completed == static_cast<int64_t>(r.plan.requests.size()));
}

TEST_CASE("attention-DP: more KV per pool raises throughput when the KV cache is the limit",
          "[serving][attention_dp]") {
  // A model whose KV is replicated over the tensor-parallel chips (one latent head, as MLA):
  // attn_dp groups each cache their own sequences, so the pool holds attn_dp times the tokens
  // (serving::pool_kv_capacity_blocks); here 4 ranks of the 1-rank pool's capacity.
  const AnalyticCostModel model(cost_params());
  const int64_t per_rank = 200;  // blocks: 8 requests of ~400 tokens
  ServingScenario s;
  s.workload.kind = ArrivalKind::kClosedLoop;
  s.workload.concurrency = 64;
  s.workload.num_prompts = 256;
  s.workload.lengths = {300, 100, 0.8};
  s.system = pool_system(1, per_rank);
  const ServingResult one = run_serving(s, model, 3);
  s.system = pool_system(4, 4 * per_rank);
  const ServingResult four = run_serving(s, model, 3);
  INFO("attn_dp 1: " << one.metrics.output_throughput << " tok/s, max batch "
                     << one.trace.stats.pools[0].max_batch_sequences
                     << "; attn_dp 4: " << four.metrics.output_throughput << " tok/s, max batch "
                     << four.trace.stats.pools[0].max_batch_sequences);
  CHECK(four.trace.stats.pools[0].max_batch_sequences >
        one.trace.stats.pools[0].max_batch_sequences);
  CHECK(four.metrics.output_throughput > 1.5 * one.metrics.output_throughput);
}

TEST_CASE("attention-DP: each rank schedules within its own share of the token budget",
          "[serving][attention_dp]") {
  // 8,192 tokens over 2 ranks: 4,096 each. Ragged prompts arriving at once: a shared budget
  // would give rank 0 the first 6,000-token prompt whole and rank 1 the rest (2,192 tokens),
  // and the iteration would wait for rank 0; each rank's own budget fills both to 4,096.
  const AnalyticCostModel base(cost_params());
  RecordingCostModel model(base);
  const std::vector<int64_t> inputs{6000, 1000, 1000, 6000};
  ContinuousBatchingScheduler(pool_system(2, 10000), model).run(at_once(inputs, 2), 1);
  REQUIRE(!model.batches.empty());
  for (const IterationBatch& b : model.batches) {
    const std::vector<int64_t> per_rank = tokens_per_rank(b, 2);
    CHECK(per_rank[0] <= 4096);
    CHECK(per_rank[1] <= 4096);
  }
  const IterationBatch& first = model.batches.front();
  CHECK(tokens_per_rank(first, 2) == std::vector<int64_t>{4096, 4096});
  // The first prompt is chunked on rank 0; the other three run on rank 1, the last chunked.
  REQUIRE(prefills(first) == std::vector<int64_t>{4096, 1000, 1000, 2096});
  CHECK(first.sequences[0].rank == 0);
  for (size_t i = 1; i < 4; ++i) CHECK(first.sequences[i].rank == 1);
}

TEST_CASE("attention-DP: a budget split over ranks is checked per rank",
          "[serving][attention_dp]") {
  const AnalyticCostModel model(cost_params());
  // Without chunking a prompt must fit one rank's share: 5,000 tokens fit the pool's 8,192 but
  // not a rank's 4,096.
  ServingSystem system = pool_system(2, 10000);
  system.pools[0].scheduler.chunked_prefill = false;
  std::string why;
  try {
    ContinuousBatchingScheduler(system, model).run(at_once({5000}, 1), 1);
  } catch (const InputError& e) {
    why = e.what();
  }
  CHECK_THAT(why, Catch::Contains("/ attention_dp 2 = 4096 per rank"));
  CHECK_NOTHROW(ContinuousBatchingScheduler(system, model).run(at_once({4000}, 1), 1));
  // Fewer tokens than ranks leaves a rank nothing to schedule.
  system = pool_system(4, 10000);
  system.pools[0].scheduler.max_num_batched_tokens = 3;
  why.clear();
  try {
    ContinuousBatchingScheduler(system, model).run(at_once({10}, 1), 1);
  } catch (const InputError& e) {
    why = e.what();
  }
  CHECK_THAT(why, Catch::Contains("at least one token per attention-DP rank (4 ranks)"));
}
