// The scheduler's policies (sim/serving/scheduling_policy.hpp): chosen by name from registries
// that list what exists and refuse an unknown name, and each changing what an iteration serves.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/serving/analytic_cost_model.hpp"
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
