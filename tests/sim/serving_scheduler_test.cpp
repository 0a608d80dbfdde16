// Continuous-batching scheduler on the analytic cost model: timelines derived from the cost
// parameters, closed-loop invariants, chunked prefill, KV preemption, disaggregation and MTP.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
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

PoolConfig pool(PoolRole role, int64_t chips) {
  PoolConfig p;
  p.name = to_string(role);
  p.role = role;
  p.chips = chips;
  p.scheduler.max_num_seqs = 256;
  p.scheduler.max_num_batched_tokens = 8192;
  p.scheduler.kv_block_tokens = 16;
  return p;
}

ServingSystem colocated(int64_t chips = 8) {
  ServingSystem s;
  s.pools.push_back(pool(PoolRole::kColocated, chips));
  return s;
}

// Transfer time: latency + bytes / bandwidth.
constexpr double kTransferLatency = 2e-3;     // s
constexpr double kTransferBandwidth = 50e9;   // B/s
constexpr double kKvBytesPerToken = 70000.0;  // B

ServingSystem disaggregated() {
  ServingSystem s;
  s.pools.push_back(pool(PoolRole::kPrefill, 4));
  s.pools.push_back(pool(PoolRole::kDecode, 8));
  s.kv_bytes_per_token = bytes(kKvBytesPerToken);
  s.kv_transfer_time = [](const KvTransfer& t) {
    return seconds(kTransferLatency + t.bytes.si() / kTransferBandwidth);
  };
  return s;
}

RequestPlan one_request(int64_t input, int64_t output) {
  RequestPlan plan;
  Request r;
  r.input_tokens = input;
  r.output_tokens = output;
  plan.requests.push_back(r);
  return plan;
}

ServingScenario closed_loop(int64_t concurrency, int64_t input, int64_t output) {
  ServingScenario s;
  s.workload.kind = ArrivalKind::kClosedLoop;
  s.workload.concurrency = concurrency;
  s.workload.lengths = {input, output, 0.8};
  s.system = colocated();
  return s;
}

// Most requests at once between `from` (a record's time point) and their finish, from the
// records alone: +1 at `from`, -1 at finished (finishes first at equal times, as a slot freed at
// t is reused at t).
int64_t most_at_once(const std::vector<RequestRecord>& records, Duration RequestRecord::*from) {
  std::vector<std::pair<double, int>> events;
  for (const RequestRecord& r : records) {
    events.emplace_back((r.*from).si(), +1);
    events.emplace_back(r.finished.si(), -1);
  }
  std::sort(events.begin(), events.end());
  int64_t now = 0, most = 0;
  for (const auto& e : events) {
    now += e.second;
    most = std::max(most, now);
  }
  return most;
}

// Most requests in flight at once (sent to finished).
int64_t max_concurrency_of(const std::vector<RequestRecord>& records) {
  return most_at_once(records, &RequestRecord::sent);
}

std::string error_text(const ServingSystem& system, const RequestPlan& plan,
                       const IterationCostModel& cost) {
  try {
    ContinuousBatchingScheduler(system, cost).run(plan, 1);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a lone request's timeline follows the cost model", "[serving]") {
  const AnalyticCostParams p = cost_params();
  const AnalyticCostModel model(p);
  const int64_t input = 1000, output = 6;
  const ServingSystem system = colocated();
  const ServingTrace t =
      ContinuousBatchingScheduler(system, model).run(one_request(input, output), 1);
  REQUIRE(t.records.size() == 1);
  const RequestRecord& r = t.records[0];

  // Prefill: one iteration of the whole prompt, reading its own KV.
  const double prefill =
      p.fixed.si() + input * p.prefill_token_time.si() + input * p.kv_token_time.si();
  CHECK(r.ttft().si() == Approx(prefill));
  // Then output - 1 decode steps; step j attends to input + j tokens.
  double decode = 0.0;
  for (int64_t j = 1; j < output; ++j) {
    const double step =
        p.fixed.si() + p.decode_sequence_time.si() + (input + j) * p.kv_token_time.si();
    REQUIRE(r.itl.size() >= static_cast<size_t>(j));
    CHECK(r.itl[static_cast<size_t>(j - 1)].si() == Approx(step));
    decode += step;
  }
  CHECK(r.itl.size() == static_cast<size_t>(output - 1));
  CHECK(r.e2el().si() == Approx(prefill + decode));
  CHECK(r.tpot()->si() == Approx(decode / (output - 1)));
  CHECK(t.stats.pools[0].iterations == output);
  CHECK(t.stats.pools[0].prefill_tokens == input);
  CHECK(t.stats.pools[0].decode_positions == output - 1);
  CHECK(t.stats.window().si() == Approx(prefill + decode));
  // Energy: pool power over the busy time plus the per-token energy.
  CHECK(t.stats.total_energy().si() == Approx(p.pool_power.si() * (prefill + decode) +
                                              p.energy_per_token.si() * (input + output - 1)));
}

TEST_CASE("chunked prefill splits a prompt within the token budget", "[serving]") {
  const AnalyticCostParams p = cost_params();
  const AnalyticCostModel model(p);
  ServingSystem system = colocated();
  const int64_t budget = 1000, input = 2500;
  system.pools[0].scheduler.max_num_batched_tokens = budget;
  const ServingTrace t = ContinuousBatchingScheduler(system, model).run(one_request(input, 2), 1);
  // Chunks 1000, 1000, 500; each reads the KV of the prompt so far.
  const int64_t chunks = (input + budget - 1) / budget;
  double expected = chunks * p.fixed.si() + input * p.prefill_token_time.si();
  for (int64_t c = 1; c <= chunks; ++c) {
    expected += std::min(c * budget, input) * p.kv_token_time.si();
  }
  CHECK(t.records[0].ttft().si() == Approx(expected));

  // Many prompts at once: every batch fits the budget and the sequence limit, and decodes come
  // before prefill chunks in each batch (vLLM's order: running decodes first).
  RecordingCostModel recorder(model);
  system.pools[0].scheduler.max_num_seqs = 6;
  ServingScenario s = closed_loop(8, 3000, 20);
  s.system = system;
  const ServingResult result = run_serving(s, recorder, 5);
  bool mixed = false;
  for (const IterationBatch& b : recorder.batches) {
    CHECK(b.prefill_tokens() + b.decode_tokens() <= budget);
    CHECK(static_cast<int64_t>(b.sequences.size()) <= system.pools[0].scheduler.max_num_seqs);
    bool seen_prefill = false;
    for (const SequenceWork& w : b.sequences) {
      if (w.phase == SequencePhase::kPrefill) seen_prefill = true;
      if (w.phase == SequencePhase::kDecode) CHECK_FALSE(seen_prefill);
      CHECK(w.context_after == w.context_before + w.new_tokens);
    }
    mixed = mixed || (b.prefill_tokens() > 0 && b.decode_tokens() > 0);
  }
  CHECK(mixed);  // chunks ride along with decodes
  CHECK(result.trace.stats.pools[0].max_batch_tokens == budget);
}

TEST_CASE("without chunked prefill a prompt over the budget is refused up front", "[serving]") {
  const AnalyticCostModel model(cost_params());
  ServingSystem system = colocated();
  system.pools[0].scheduler.chunked_prefill = false;
  system.pools[0].scheduler.max_num_batched_tokens = 512;
  CHECK_THAT(error_text(system, one_request(600, 1), model),
             Catch::Contains("requests[0]") && Catch::Contains("chunked prefill is off"));
  system.pools[0].kv_capacity_blocks = 4;  // 16-token blocks: 64 tokens
  CHECK_THAT(error_text(system, one_request(100, 1), model),
             Catch::Contains("system.pools[0].kv_capacity_blocks = 4"));
}

// Mean number of requests in flight over the window, integrated from the records.
double mean_in_flight(const std::vector<RequestRecord>& records, double window) {
  double area = 0.0;
  for (const RequestRecord& r : records) area += (r.finished - r.sent).si();
  return area / window;
}

TEST_CASE("closed loop: never more than N in flight, and Little's law holds", "[serving]") {
  const AnalyticCostModel model(cost_params());
  for (const int64_t n : {1, 4, 16, 64}) {
    INFO("concurrency " << n);
    // InferenceX's run: 10 x N prompts.
    const ServingResult r = run_serving(closed_loop(n, 1024, 128), model, 3);
    REQUIRE(r.trace.records.size() == static_cast<size_t>(10 * n));
    CHECK(r.trace.stats.max_in_flight == n);
    CHECK(max_concurrency_of(r.trace.records) == n);
    // L = lambda x W over the benchmark window, with L integrated from the records.
    const double lambda_w = r.metrics.request_throughput * r.metrics.e2el_ms.mean / 1000.0;
    CHECK(lambda_w == Approx(mean_in_flight(r.trace.records, r.metrics.duration_s)));
    CHECK(lambda_w <= static_cast<double>(n) * (1.0 + 1e-12));

    // L = N while every client is busy; only the drain after the last send lowers the window
    // average (by up to 4% at 10 x N prompts). With 50 x N prompts the drain is a fifth as
    // long, and throughput x mean E2E latency must give the concurrency within 2%.
    ServingScenario longer = closed_loop(n, 1024, 128);
    longer.workload.num_prompts = 50 * n;
    const ServingResult l = run_serving(longer, model, 3);
    const double little = l.metrics.request_throughput * l.metrics.e2el_ms.mean / 1000.0;
    CHECK(little == Approx(static_cast<double>(n)).epsilon(0.02));
  }
}

TEST_CASE("same seed, identical records, another seed, other lengths", "[serving]") {
  const AnalyticCostModel model(cost_params());
  ServingScenario s = closed_loop(8, 512, 64);
  s.system.pools[0].scheduler.mtp = {2, 0.7, MtpConfig::Mode::kSampled};
  const ServingResult a = run_serving(s, model, 9);
  const ServingResult b = run_serving(s, model, 9);
  const ServingResult c = run_serving(s, model, 10);
  REQUIRE(a.trace.records.size() == b.trace.records.size());
  bool differ = false;
  for (size_t i = 0; i < a.trace.records.size(); ++i) {
    const RequestRecord& x = a.trace.records[i];
    const RequestRecord& y = b.trace.records[i];
    CHECK(x.sent == y.sent);
    CHECK(x.first_token == y.first_token);
    CHECK(x.finished == y.finished);
    CHECK(x.itl == y.itl);
    differ = differ || x.input_tokens != c.trace.records[i].input_tokens;
  }
  CHECK(a.metrics.named() == b.metrics.named());
  CHECK(differ);
}

TEST_CASE("small KV capacity preempts by recompute and still completes every request",
          "[serving]") {
  const AnalyticCostModel base(cost_params());
  RecordingCostModel model(base);
  ServingScenario s = closed_loop(16, 200, 200);
  const int64_t capacity = 100;  // 16-token blocks; one request needs at most 25
  s.system.pools[0].kv_capacity_blocks = capacity;
  const ServingResult r = run_serving(s, model, 4);
  const PoolStats& stats = r.trace.stats.pools[0];
  CHECK(stats.preemptions > 0);
  CHECK(stats.wasted_tokens > 0);
  int64_t input = 0, preempted = 0;
  for (const RequestRecord& rec : r.trace.records) {
    input += rec.input_tokens;
    preempted += rec.preemptions;
    CHECK(rec.finished >= rec.first_token);
    CHECK(rec.first_token >= rec.sent);
    // Without MTP every token is its own delivery, recomputed or not.
    CHECK(rec.itl.size() + 1 == static_cast<size_t>(rec.output_tokens));
  }
  CHECK(preempted == stats.preemptions);
  CHECK(stats.prefill_tokens > input);  // recomputation is extra prefill work
  CHECK(r.metrics.completed == static_cast<int64_t>(r.plan.requests.size()));
  // No batch holds more KV than the pool has.
  for (const IterationBatch& b : model.batches) {
    int64_t blocks = 0;
    for (const SequenceWork& w : b.sequences) blocks += (w.context_after + 15) / 16;
    CHECK(blocks <= capacity);
  }
  // Wasted work costs energy: the same requests with ample KV use less.
  ServingScenario ample = s;
  ample.system.pools[0].kv_capacity_blocks = 1 << 20;
  const ServingResult without = run_serving(ample, base, 4);
  CHECK(without.metrics.preemptions == 0);
  CHECK(r.metrics.total_energy_j > without.metrics.total_energy_j);
}

TEST_CASE("disaggregation adds the KV transfer to TTFT", "[serving]") {
  const AnalyticCostModel model(cost_params());
  const int64_t input = 4000, output = 10;
  std::vector<KvTransfer> transfers;
  ServingSystem split = disaggregated();
  const KvTransferTime inner = split.kv_transfer_time;
  split.kv_transfer_time = [&](const KvTransfer& t) {
    transfers.push_back(t);
    return inner(t);
  };
  const ServingTrace a =
      ContinuousBatchingScheduler(colocated(), model).run(one_request(input, output), 1);
  const ServingTrace b =
      ContinuousBatchingScheduler(split, model).run(one_request(input, output), 1);
  const double transfer = kTransferLatency + input * kKvBytesPerToken / kTransferBandwidth;
  CHECK(b.records[0].ttft().si() == Approx(a.records[0].ttft().si() + transfer));
  CHECK(b.records[0].e2el().si() == Approx(a.records[0].e2el().si() + transfer));
  REQUIRE(transfers.size() == 1);
  CHECK(transfers[0].tokens == input);
  CHECK(transfers[0].bytes.si() == Approx(input * kKvBytesPerToken));
  CHECK(b.stats.pools[0].prefill_tokens == input);
  CHECK(b.stats.pools[0].decode_positions == 0);
  CHECK(b.stats.pools[1].prefill_tokens == 0);
  CHECK(b.stats.pools[1].decode_positions == output - 1);

  // A closed loop on the split system completes, one transfer per request.
  ServingScenario s = closed_loop(16, 2048, 64);
  s.system = disaggregated();
  const ServingResult r = run_serving(s, model, 2);
  CHECK(r.metrics.completed == 160);
  CHECK(r.trace.stats.kv_transfers == 160);
  CHECK(r.metrics.output_tput_per_chip == Approx(r.metrics.output_throughput / 8));
  CHECK(r.metrics.input_tput_per_chip == Approx(r.metrics.input_throughput / 4));
}

TEST_CASE("MTP raises tokens per step by the expected factor", "[serving]") {
  AnalyticCostParams p = cost_params();
  p.kv_token_time = Duration();  // every decode step of one sequence costs the same
  const AnalyticCostModel model(p);
  const int64_t depth = 3;
  const double a = 0.6;
  const double expected = (1.0 - std::pow(a, depth + 1)) / (1.0 - a);
  const int64_t output = 2001;

  ServingSystem plain = colocated();
  ServingSystem mtp = colocated();
  mtp.pools[0].scheduler.mtp = {depth, a, MtpConfig::Mode::kExpected};
  const ServingTrace base =
      ContinuousBatchingScheduler(plain, model).run(one_request(100, output), 1);
  const ServingTrace fast =
      ContinuousBatchingScheduler(mtp, model).run(one_request(100, output), 1);
  const PoolStats& s = fast.stats.pools[0];
  // The cost model sees depth + 1 verified positions per step; only accepted tokens count.
  CHECK(s.decode_positions == s.decode_steps * (depth + 1));
  CHECK(static_cast<double>(s.drafted_tokens) / s.decode_steps == Approx(expected).epsilon(1e-3));
  CHECK(static_cast<double>(output - 1) / s.decode_steps == Approx(expected).epsilon(1e-3));
  // Equal step costs: TPOT falls by the same factor.
  CHECK(base.records[0].tpot()->si() / fast.records[0].tpot()->si() ==
        Approx(expected).epsilon(2e-3));

  // Seeded draws: the mean over many steps approaches the expectation.
  mtp.pools[0].scheduler.mtp.mode = MtpConfig::Mode::kSampled;
  RequestPlan plan;
  for (int i = 0; i < 8; ++i) {
    Request r;
    r.id = i;
    r.input_tokens = 100;
    r.output_tokens = output;
    plan.requests.push_back(r);
  }
  const ServingTrace sampled = ContinuousBatchingScheduler(mtp, model).run(plan, 1);
  const PoolStats& ss = sampled.stats.pools[0];
  // About 7,400 steps; the per-step tokens have a standard deviation near 1.1: 2% is > 10 sigma.
  CHECK(static_cast<double>(ss.drafted_tokens) / ss.decode_steps == Approx(expected).epsilon(0.02));
}

TEST_CASE("a disaggregated decode pool short of KV preempts and recomputes locally", "[serving]") {
  const AnalyticCostModel model(cost_params());
  ServingScenario s = closed_loop(16, 300, 300);
  s.system = disaggregated();
  s.system.pools[1].kv_capacity_blocks = 120;  // 16-token blocks; a request needs at most 38
  const double idle_w = 50.0;
  s.system.pools[0].idle_power_per_chip = watts(idle_w);
  const ServingResult r = run_serving(s, model, 6);
  const PoolStats& prefill = r.trace.stats.pools[0];
  const PoolStats& decode = r.trace.stats.pools[1];
  CHECK(decode.preemptions > 0);
  CHECK(prefill.preemptions == 0);
  CHECK(decode.prefill_tokens > 0);  // recomputation happens on the decode pool
  CHECK(r.metrics.completed == 160);
  for (const RequestRecord& rec : r.trace.records) {
    CHECK(rec.itl.size() + 1 == static_cast<size_t>(rec.output_tokens));
  }
  // The idle prefill pool draws idle power for the rest of the window.
  const double idle_s = r.trace.stats.window().si() - prefill.busy_time.si();
  CHECK(prefill.idle_energy.si() == Approx(idle_w * s.system.pools[0].chips * idle_s));
  CHECK(decode.idle_energy.si() == 0.0);
}

TEST_CASE("open loop: requests are sent at arrival, or held by max_concurrency", "[serving]") {
  const AnalyticCostModel model(cost_params());
  ServingScenario s;
  s.workload.kind = ArrivalKind::kPoisson;
  s.workload.rate = 20.0;
  s.workload.num_prompts = 200;
  s.workload.lengths = {512, 64, 0.8};
  s.system = colocated();
  const ServingResult free_run = run_serving(s, model, 8);
  for (size_t i = 0; i < free_run.plan.requests.size(); ++i) {
    CHECK(free_run.trace.records[i].sent == free_run.plan.requests[i].arrival);
  }
  CHECK(free_run.metrics.duration_s ==
        Approx(free_run.trace.stats.window_end.si() - free_run.plan.requests[0].arrival.si()));

  s.workload.max_concurrency = 3;
  const ServingResult held = run_serving(s, model, 8);
  CHECK(max_concurrency_of(held.trace.records) <= 3);
  bool waited = false;
  for (size_t i = 0; i < held.plan.requests.size(); ++i) {
    CHECK(held.trace.records[i].sent >= held.plan.requests[i].arrival);
    waited = waited || held.trace.records[i].sent > held.plan.requests[i].arrival;
    if (i > 0) CHECK(held.trace.records[i].sent >= held.trace.records[i - 1].sent);  // FIFO
  }
  CHECK(waited);
}

TEST_CASE("a request trace replays through run_serving", "[serving]") {
  const AnalyticCostModel model(cost_params());
  ServingScenario s;
  s.workload.kind = ArrivalKind::kTrace;
  s.workload.trace_path =
      std::string(SCOVILLE_SOURCE_DIR) + "/workloads/requests/samples/small_trace.csv";
  s.system = colocated();
  const ServingResult r = run_serving(s, model, 1);
  REQUIRE(r.trace.records.size() == 5);
  int64_t output = 0;
  for (size_t i = 0; i < r.trace.records.size(); ++i) {
    CHECK(r.trace.records[i].sent == r.plan.requests[i].arrival);
    output += r.plan.requests[i].output_tokens;
  }
  CHECK(r.metrics.total_output_tokens == output);
  CHECK(r.metrics.tpot_ms.count == 4);  // the last request has one output token
}

TEST_CASE("a request arriving mid-iteration joins at the next iteration boundary", "[serving]") {
  const AnalyticCostParams p = cost_params();
  const AnalyticCostModel model(p);
  const int64_t input = 100;
  RequestPlan plan = one_request(input, 3);
  Request late = plan.requests[0];
  late.id = 1;
  late.arrival = milliseconds(1.0);  // during the first request's prefill
  plan.requests.push_back(late);
  const ServingTrace t = ContinuousBatchingScheduler(colocated(), model).run(plan, 1);
  const double first = p.fixed.si() + input * (p.prefill_token_time + p.kv_token_time).si();
  CHECK(first > late.arrival.si());
  // Second iteration: the first request's decode (context input + 1) with the whole late prompt.
  const double second = p.fixed.si() + input * p.prefill_token_time.si() +
                        p.decode_sequence_time.si() + ((input + 1) + input) * p.kv_token_time.si();
  CHECK(t.records[0].ttft().si() == Approx(first));
  CHECK(t.records[1].sent == late.arrival);
  CHECK(t.records[1].ttft().si() == Approx(first + second - late.arrival.si()));
  CHECK(t.records[0].itl[0].si() == Approx(second));
}

TEST_CASE("held decode slots queue requests before their first token, not between tokens",
          "[serving]") {
  // Six clients on a decode pool of two slots: without reservation the prefill pool admits all
  // six and four wait between their first and second token; with it they wait before prefill.
  const AnalyticCostModel model(cost_params());
  ServingScenario s = closed_loop(6, 512, 32);
  s.workload.num_prompts = 24;
  s.system = disaggregated();
  s.system.pools[1].scheduler.max_num_seqs = 2;
  const ServingResult free_prefill = run_serving(s, model, 1);
  s.system.handoff = "reserve-decode-slot";
  const ServingResult held = run_serving(s, model, 1);
  REQUIRE(free_prefill.metrics.completed == 24);
  REQUIRE(held.metrics.completed == 24);
  // Requests between first token and finish at once: at most the slots when they are held.
  CHECK(most_at_once(held.trace.records, &RequestRecord::first_token) <= 2);
  CHECK(most_at_once(free_prefill.trace.records, &RequestRecord::first_token) > 2);
  auto longest_gap = [](const std::vector<RequestRecord>& records) {
    double gap = 0;
    for (const RequestRecord& r : records) {
      for (const Duration& d : r.itl) gap = std::max(gap, d.si());
    }
    return gap;
  };
  // The wait moves from the token gaps to the TTFT.
  CHECK(longest_gap(held.trace.records) < 0.2 * longest_gap(free_prefill.trace.records));
  CHECK(held.metrics.ttft_ms.mean > 2 * free_prefill.metrics.ttft_ms.mean);
  // Co-located pools ignore it.
  ServingScenario c = closed_loop(6, 512, 32);
  c.workload.num_prompts = 24;
  const ServingResult plain = run_serving(c, model, 1);
  c.system.handoff = "reserve-decode-slot";
  CHECK(run_serving(c, model, 1).metrics.e2el_ms.mean == plain.metrics.e2el_ms.mean);
}
