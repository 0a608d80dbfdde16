// The scheduler's optional observer (timelines): it changes no result, and what it is told adds
// up to the scheduler's own totals (iterations, tokens, preemptions, KV hand-overs).
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include "sim/serving/analytic_cost_model.hpp"
#include "sim/serving/scheduler_observer.hpp"
#include "sim/serving/serving_run.hpp"
#include "tests/sim/serving_fixtures.hpp"

using namespace scoville;
using namespace scoville::serving;
using scoville::serving::test::cost_params;

namespace {

PoolConfig pool(PoolRole role, int64_t blocks) {
  PoolConfig p;
  p.name = to_string(role);
  p.role = role;
  p.chips = 2;
  p.kv_capacity_blocks = blocks;
  p.scheduler.max_num_seqs = 16;
  p.scheduler.max_num_batched_tokens = 512;
  p.scheduler.kv_block_tokens = 16;
  return p;
}

// Closed loop of 12 clients; the decode pool's KV holds a few sequences only, so it preempts.
ServingScenario scenario(bool disaggregated) {
  ServingScenario s;
  s.workload.kind = workloads::ArrivalKind::kClosedLoop;
  s.workload.concurrency = 12;
  s.workload.num_prompts = 36;
  s.workload.lengths = {300, 60, 0.8};
  if (disaggregated) {
    s.system.pools.push_back(pool(PoolRole::kPrefill, 1000));
    s.system.pools.push_back(pool(PoolRole::kDecode, 80));
    s.system.kv_bytes_per_token = bytes(1000.0);
    s.system.kv_transfer_time = [](const KvTransfer& t) {
      return seconds(1e-3 + t.bytes.si() / 1e10);
    };
  } else {
    s.system.pools.push_back(pool(PoolRole::kColocated, 80));
  }
  return s;
}

class Tally final : public SchedulerObserver {
 public:
  void on_iteration(const ObservedIteration& it) override { iterations.push_back(it); }
  void on_preemption(int pool, int64_t, Duration) override { preemptions[pool] += 1; }
  void on_kv_transfer(const ObservedKvTransfer& t) override { transfers.push_back(t); }
  std::vector<ObservedIteration> iterations;
  std::map<int, int64_t> preemptions;
  std::vector<ObservedKvTransfer> transfers;
};

}  // namespace

TEST_CASE("the scheduler observer changes nothing and its reports add up", "[serving]") {
  for (const bool disaggregated : {false, true}) {
    CAPTURE(disaggregated);
    const AnalyticCostModel model(cost_params());
    const ServingScenario s = scenario(disaggregated);
    const ServingResult plain = run_serving(s, model, 5);
    Tally tally;
    const ServingResult watched = run_serving(s, model, 5, &tally);

    REQUIRE(plain.trace.records.size() == watched.trace.records.size());
    for (size_t i = 0; i < plain.trace.records.size(); ++i) {
      const RequestRecord& a = plain.trace.records[i];
      const RequestRecord& b = watched.trace.records[i];
      CHECK(a.sent == b.sent);
      CHECK(a.first_token == b.first_token);
      CHECK(a.finished == b.finished);
      CHECK(a.itl == b.itl);
      CHECK(a.preemptions == b.preemptions);
    }
    CHECK(plain.trace.stats.total_energy() == watched.trace.stats.total_energy());

    const std::vector<PoolStats>& pools = watched.trace.stats.pools;
    int64_t preempted = 0;
    for (size_t p = 0; p < pools.size(); ++p) {
      int64_t iterations = 0, prefill = 0, decode = 0;
      Duration busy, last_end;
      for (const ObservedIteration& it : tally.iterations) {
        if (it.pool != static_cast<int>(p)) continue;
        ++iterations;
        busy += it.end - it.start;
        CHECK(it.start >= last_end);  // a pool runs one iteration at a time
        last_end = it.end;
        CHECK(it.running >= static_cast<int64_t>(it.sequences.size()));
        CHECK(it.kv_blocks_used <= s.system.pools[p].kv_capacity_blocks);
        for (const ObservedSequence& q : it.sequences) {
          (q.phase == SequencePhase::kPrefill ? prefill : decode) += q.new_tokens;
        }
      }
      CHECK(iterations == pools[p].iterations);
      CHECK(busy.si() == Approx(pools[p].busy_time.si()).epsilon(1e-12));
      CHECK(prefill == pools[p].prefill_tokens);
      CHECK(decode == pools[p].decode_positions);
      CHECK(tally.preemptions[static_cast<int>(p)] == pools[p].preemptions);
      preempted += pools[p].preemptions;
    }
    CHECK(preempted > 0);  // the scenario exercises the preemption report
    CHECK(static_cast<int64_t>(tally.transfers.size()) == watched.trace.stats.kv_transfers);
    // A hand-over arrives when the client gets the first token.
    for (const ObservedKvTransfer& t : tally.transfers) {
      const RequestRecord& r = watched.trace.records[static_cast<size_t>(t.request)];
      CHECK(t.arrival == r.first_token);
      CHECK(t.from_pool == 0);
      CHECK(t.to_pool == 1);
      CHECK(t.bytes.si() == Approx(1000.0 * static_cast<double>(t.tokens)));
    }
  }
}
