#include "sim/serving/continuous_batching_scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <queue>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include "models/kv/kv_block_manager.hpp"
#include "sim/base/error.hpp"
#include "sim/base/rng.hpp"
#include "sim/serving/scheduling_policy.hpp"
#include "sim/serving/serving_power.hpp"

namespace scoville::serving {
namespace {

struct Sequence {
  int64_t request = 0;    // index into the plan and the records
  int64_t prompt = 0;     // tokens to prefill before decoding (input, plus output after preemption)
  int64_t computed = 0;   // tokens whose KV is cached
  int64_t generated = 0;  // output tokens produced
  int64_t rank = -1;      // attention-DP rank holding its KV while running; -1: not admitted
  double mtp_credit = 0.0;
  bool admitted_before = false;  // the prefix cache is consulted at the first admission only
  bool prefilling() const { return computed < prompt; }
};

struct Scheduled {
  size_t running_index = 0;
  SequenceWork work;
};

struct Pool {
  const PoolConfig* config = nullptr;
  std::shared_ptr<const BatchingPolicy> policy;  // config->scheduler.policy
  int index = 0;
  std::deque<Sequence> waiting;
  std::vector<Sequence> running;  // admission order
  // The pool's one KV account: a paged block manager per attention-DP rank (one without
  // attention-DP), each holding kv_capacity_blocks / attention_dp blocks. Sequences are keyed by
  // request index; the manager's admission order is the running order restricted to its rank.
  std::vector<models::KvBlockManager> kv;
  bool busy = false;
  std::vector<Scheduled> in_flight;
  PoolStats stats;
  std::optional<PoolPowerState> power;  // the cap controller, and the pool's power report
  Duration last_end;                    // end of the pool's last iteration
  double energy_per_position = 0.0;     // J per token position of the iteration in flight
};

enum class EventKind { kArrival, kIterationEnd, kKvArrival };

struct Event {
  Duration time;
  int64_t order = 0;  // tie-break: events at one time apply in the order they were created
  EventKind kind = EventKind::kArrival;
  int pool = 0;
  Sequence sequence;  // kKvArrival: the sequence handed over; kArrival: its request index

  bool operator>(const Event& o) const { return time != o.time ? time > o.time : order > o.order; }
};

int64_t rank_capacity_blocks(const PoolConfig& pool) {
  return pool.kv_capacity_blocks / pool.attention_dp;
}

// The token budget of one attention-DP rank: the pool's max_num_batched_tokens split evenly
// (the lower ranks take the remainder). Each rank runs its own scheduler with its own budget
// (vLLM's data-parallel engines, SGLang's DP-attention workers, TensorRT-LLM's attention-DP
// ranks), so no rank can take another's share: a shared budget would let one rank take several
// prompt chunks while another idles, and the iteration waits for the most loaded rank.
int64_t rank_token_budget(const PoolConfig& pool, int64_t rank) {
  const int64_t total = pool.scheduler.max_num_batched_tokens;
  return total / pool.attention_dp + (rank < total % pool.attention_dp ? 1 : 0);
}

class Run {
 public:
  Run(const ServingSystem& system, const IterationCostModel& cost_model,
      const workloads::RequestPlan& plan, uint64_t seed, SchedulerObserver* observer)
      : system_(system),
        cost_model_(cost_model),
        plan_(plan),
        mtp_rng_(seed, "serving.mtp"),
        observer_(observer),
        handoff_(make_handoff_policy(system.handoff)) {}

  ServingTrace execute() {
    check_requests();
    for (size_t i = 0; i < system_.pools.size(); ++i) {
      Pool p;
      p.config = &system_.pools[i];
      p.policy = make_batching_policy(p.config->scheduler.policy);
      p.index = static_cast<int>(i);
      for (int64_t r = 0; r < p.config->attention_dp; ++r) {
        p.kv.emplace_back(rank_capacity_blocks(*p.config), p.config->scheduler.kv_block_tokens,
                          p.config->state_blocks_per_sequence, p.config->bounded_kv_layers);
        p.kv.back().on_evict = [this](int64_t request) { evicted_.push_back(request); };
      }
      p.power.emplace(p.config->power, p.config->chips, p.config->idle_power_per_chip);
      pools_.push_back(std::move(p));
    }
    trace_.records.resize(plan_.requests.size());
    for (size_t i = 0; i < plan_.requests.size(); ++i) {
      const workloads::Request& r = plan_.requests[i];
      RequestRecord& rec = trace_.records[i];
      rec.id = r.id;
      rec.input_tokens = r.input_tokens;
      rec.output_tokens = r.output_tokens;
      rec.arrival = r.arrival;
      Event e;
      e.time = r.arrival;
      e.kind = EventKind::kArrival;
      e.sequence.request = static_cast<int64_t>(i);
      push(e);
    }
    last_token_.assign(plan_.requests.size(), Duration());
    delivered_any_.assign(plan_.requests.size(), false);
    holds_decode_slot_.assign(plan_.requests.size(), false);

    while (!events_.empty()) {
      const Duration now = events_.top().time;
      while (!events_.empty() && events_.top().time == now) {
        const Event e = events_.top();
        events_.pop();
        apply(e, now);
      }
      for (Pool& p : pools_) {
        if (!p.busy) start_iteration(p, now);
      }
    }
    if (finished_ != static_cast<int64_t>(plan_.requests.size())) {
      throw std::logic_error("serving scheduler stalled with " +
                             std::to_string(plan_.requests.size() - finished_) +
                             " requests unfinished");
    }
    finish_stats();
    return std::move(trace_);
  }

 private:
  // Refuses requests that no iteration could ever serve, so that the loop cannot stall.
  void check_requests() const {
    Diagnostics d;
    for (size_t i = 0; i < plan_.requests.size(); ++i) {
      const workloads::Request& r = plan_.requests[i];
      // A request read from a file is named by its file and line; a generated one by its index.
      const SourceLocation where =
          r.line > 0 ? SourceLocation{plan_.source, r.line, 0} : SourceLocation{};
      const std::string key = r.line > 0 ? "input_tokens" : "requests[" + std::to_string(i) + "]";
      for (size_t p = 0; p < system_.pools.size(); ++p) {
        const PoolConfig& pool = system_.pools[p];
        const SchedulerConfig& s = pool.scheduler;
        // The most KV a sequence holds: its whole context plus one step's draft positions.
        const int64_t tokens = pool.role == PoolRole::kPrefill
                                   ? r.input_tokens
                                   : r.input_tokens + r.output_tokens + s.mtp.depth;
        const int64_t need =
            models::kv_blocks_for_tokens(tokens, s.kv_block_tokens, pool.bounded_kv_layers) +
            pool.state_blocks_per_sequence;
        const std::string pool_key = "system.pools[" + std::to_string(p) + "]";
        if (need > rank_capacity_blocks(pool)) {
          d.error(where, key,
                  "needs " + std::to_string(need) + " KV blocks" +
                      (pool.state_blocks_per_sequence > 0
                           ? " (" + std::to_string(pool.state_blocks_per_sequence) +
                                 " of them for its recurrent state)"
                           : std::string()) +
                      ", more than " + pool_key +
                      ".kv_capacity_blocks = " + std::to_string(pool.kv_capacity_blocks) +
                      (pool.attention_dp > 1
                           ? " / attention_dp " + std::to_string(pool.attention_dp) + " = " +
                                 std::to_string(rank_capacity_blocks(pool)) + " per rank"
                           : std::string()));
        }
        // Without chunking a prompt, recomputed after preemption with its generated tokens,
        // must fit one iteration (vLLM: max_num_batched_tokens >= max_model_len).
        const int64_t longest_prompt =
            pool.role == PoolRole::kPrefill ? r.input_tokens : r.input_tokens + r.output_tokens;
        // A prompt runs on one rank, within that rank's budget (the smallest is the last's).
        const int64_t rank_budget = rank_token_budget(pool, pool.attention_dp - 1);
        if (!s.chunked_prefill && longest_prompt > rank_budget) {
          d.error(
              where, key,
              std::to_string(longest_prompt) + " tokens to prefill exceed " + pool_key +
                  ".max_num_batched_tokens = " + std::to_string(s.max_num_batched_tokens) +
                  (pool.attention_dp > 1 ? " / attention_dp " + std::to_string(pool.attention_dp) +
                                               " = " + std::to_string(rank_budget) + " per rank"
                                         : std::string()) +
                  " and chunked prefill is off");
        }
      }
      if (i > 0 && r.arrival < plan_.requests[i - 1].arrival) {
        d.error(where, r.line > 0 ? "arrival_s" : key + ".arrival",
                "arrivals must be non-decreasing");
      }
    }
    d.throw_if_any();
  }

  void push(Event e) {
    e.order = next_order_++;
    events_.push(std::move(e));
  }

  void apply(const Event& e, Duration now) {
    switch (e.kind) {
      case EventKind::kArrival:
        backlog_.push_back(e.sequence.request);
        send_backlog(now);
        break;
      case EventKind::kIterationEnd:
        end_iteration(pools_[static_cast<size_t>(e.pool)], now);
        break;
      case EventKind::kKvArrival:
        kv_arrival(e.sequence, now);
        break;
    }
  }

  // The client side: sends waiting requests while the concurrency limit allows.
  void send_backlog(Duration now) {
    while (!backlog_.empty() &&
           (plan_.max_concurrency == 0 || in_flight_ < plan_.max_concurrency)) {
      const int64_t i = backlog_.front();
      backlog_.pop_front();
      RequestRecord& rec = trace_.records[static_cast<size_t>(i)];
      rec.sent = now;
      if (!any_sent_) trace_.stats.window_start = now;
      any_sent_ = true;
      ++in_flight_;
      trace_.stats.max_in_flight = std::max(trace_.stats.max_in_flight, in_flight_);
      Sequence s;
      s.request = i;
      s.prompt = rec.input_tokens;
      pools_.front().waiting.push_back(s);
    }
  }

  int64_t positions(const Pool& p) const { return 1 + p.config->scheduler.mtp.depth; }

  // Tokens to compute for `s` this iteration within `budget`, or 0 when it cannot run.
  int64_t tokens_wanted(const Pool& p, const Sequence& s, int64_t budget) const {
    if (s.prefilling()) {
      const int64_t rest = s.prompt - s.computed;
      if (!p.config->scheduler.chunked_prefill && rest > budget) return 0;
      return std::min(rest, budget);
    }
    return positions(p) <= budget ? positions(p) : 0;
  }

  static SequenceWork work_of(const Sequence& s, int64_t tokens) {
    SequenceWork w;
    w.phase = s.prefilling() ? SequencePhase::kPrefill : SequencePhase::kDecode;
    w.new_tokens = tokens;
    w.context_before = s.computed;
    w.context_after = s.computed + tokens;
    w.rank = s.rank;
    return w;
  }

  // Preempts running[index] by recompute: its KV is dropped (a no-op when its block manager
  // already evicted it) and it goes back to the front of the waiting queue.
  void preempt(Pool& p, size_t index, Duration now) {
    Sequence victim = p.running[index];
    if (observer_ != nullptr) observer_->on_preemption(p.index, victim.request, now);
    // A policy that serves in passes may preempt a sequence it scheduled in an earlier pass:
    // its tokens go back to the budget, and the later entries follow the erased one down.
    for (size_t k = p.in_flight.size(); k-- > 0;) {
      if (p.in_flight[k].running_index == index) {
        spend(victim.rank, -p.in_flight[k].work.new_tokens);
        p.in_flight.erase(p.in_flight.begin() + static_cast<std::ptrdiff_t>(k));
      } else if (p.in_flight[k].running_index > index) {
        p.in_flight[k].running_index -= 1;
      }
    }
    p.running.erase(p.running.begin() + static_cast<std::ptrdiff_t>(index));
    p.kv[static_cast<size_t>(victim.rank)].release(victim.request);
    p.stats.preemptions += 1;
    p.stats.wasted_tokens += victim.computed;
    trace_.records[static_cast<size_t>(victim.request)].preemptions += 1;
    // Recompute: the prompt and every token generated so far are prefilled again.
    victim.prompt =
        trace_.records[static_cast<size_t>(victim.request)].input_tokens + victim.generated;
    victim.computed = 0;
    victim.rank = -1;
    victim.mtp_credit = 0.0;
    p.waiting.push_front(victim);
  }

  // Preempts the running sequences the block manager evicted (youngest first), all of them
  // younger than running[i], so index i and the scheduled indices stay valid.
  void preempt_evicted(Pool& p, size_t i, Duration now) {
    for (int64_t request : evicted_) {
      for (size_t j = p.running.size(); j-- > i + 1;) {
        if (p.running[j].request == request) {
          preempt(p, j, now);
          break;
        }
      }
    }
    evicted_.clear();
  }

  // The attention-DP rank a sequence joins: of the ranks with budget left this iteration, the
  // least loaded by KV blocks, then by running sequences, then the lowest index (deterministic;
  // SGLang's DP-attention controller and vLLM's DP load balancing pick the least loaded engine).
  // -1 when no rank has budget left.
  int64_t pick_rank(const Pool& p) const {
    std::vector<int64_t> sequences(p.kv.size(), 0);
    for (const Sequence& s : p.running) sequences[static_cast<size_t>(s.rank)] += 1;
    int64_t best = -1;
    for (size_t r = 0; r < p.kv.size(); ++r) {
      if (rank_budget_[r] <= 0) continue;
      if (best < 0) {
        best = static_cast<int64_t>(r);
        continue;
      }
      const auto b = static_cast<size_t>(best);
      const int64_t used = p.kv[r].capacity_blocks() - p.kv[r].free_blocks();
      const int64_t best_used = p.kv[b].capacity_blocks() - p.kv[b].free_blocks();
      if (used < best_used || (used == best_used && sequences[r] < sequences[b])) {
        best = static_cast<int64_t>(r);
      }
    }
    return best;
  }

  // Tokens left this iteration over all ranks (kept beside the ranks' shares: the scheduler's
  // loops test it per sequence).
  int64_t budget_left() const { return budget_left_; }

  // Takes `tokens` from `rank`'s share (negative: gives them back).
  void spend(int64_t rank, int64_t tokens) {
    rank_budget_[static_cast<size_t>(rank)] -= tokens;
    budget_left_ -= tokens;
  }

  // Prompt tokens of `s` the pool's prefix cache holds, in whole KV blocks, leaving at least the
  // last prompt token to compute (it yields the first output token).
  int64_t prefix_hit(const Pool& p, const Sequence& s) const {
    const SchedulerConfig& cfg = p.config->scheduler;
    if (!cfg.prefix_caching || p.config->role == PoolRole::kDecode) return 0;
    const workloads::Request& r = plan_.requests[static_cast<size_t>(s.request)];
    int64_t cached = 0;
    if (!r.prefix_blocks.empty()) {
      for (const int64_t block : r.prefix_blocks) {
        if (cached_blocks_.count(block) == 0) break;
        cached += workloads::kPrefixBlockTokens;
      }
    } else {
      cached = static_cast<int64_t>(cfg.prefix_hit_rate * static_cast<double>(s.prompt));
    }
    cached = std::min(cached, s.prompt - 1);
    return cached - cached % cfg.kv_block_tokens;
  }

  // Serves the running sequences the policy picks, in admission order, while their ranks'
  // budgets last; grows their KV and preempts the youngest of a rank when it runs out.
  void serve_running(Pool& p, Duration now, bool prefill_work, bool& preempted) {
    for (size_t i = 0; i < p.running.size() && budget_left() > 0;) {
      const int64_t budget = rank_budget_[static_cast<size_t>(p.running[i].rank)];
      const int64_t tokens = p.policy->serves(p.running[i].prefilling(), prefill_work)
                                 ? tokens_wanted(p, p.running[i], budget)
                                 : 0;
      if (tokens == 0) {
        ++i;
        continue;
      }
      models::KvBlockManager& kv = p.kv[static_cast<size_t>(p.running[i].rank)];
      // The manager preempts younger sequences of the rank, youngest first, when the growth
      // needs their blocks; when even all of them would not do, they and this one go.
      const bool grown = kv.grow(p.running[i].request, tokens);
      if (!evicted_.empty()) preempted = true;
      preempt_evicted(p, i, now);
      if (!grown) {
        const int64_t rank = p.running[i].rank;
        for (size_t j = p.running.size(); j-- > i + 1;) {
          if (p.running[j].rank == rank) preempt(p, j, now);
        }
        preempt(p, i, now);
        preempted = true;
        continue;  // running[i] is now the next sequence
      }
      p.in_flight.push_back(Scheduled{i, work_of(p.running[i], tokens)});
      spend(p.running[i].rank, tokens);
      ++i;
    }
  }

  void start_iteration(Pool& p, Duration now) {
    const SchedulerConfig& cfg = p.config->scheduler;
    rank_budget_.resize(p.kv.size());  // serve_running, admission and preempt() share them
    budget_left_ = 0;
    for (size_t r = 0; r < rank_budget_.size(); ++r) {
      rank_budget_[r] = rank_token_budget(*p.config, static_cast<int64_t>(r));
      budget_left_ += rank_budget_[r];
    }
    bool preempted = false;
    p.in_flight.clear();

    // Prefill work: a running prompt, or a waiting sequence the batch has a slot for.
    bool prefill_work =
        !p.waiting.empty() && static_cast<int64_t>(p.running.size()) < cfg.max_num_seqs;
    for (const Sequence& s : p.running) prefill_work = prefill_work || s.prefilling();
    serve_running(p, now, prefill_work, preempted);
    // After a preemption vLLM admits nothing this step, unless the step would otherwise be empty.
    while ((!preempted || p.in_flight.empty()) && !p.waiting.empty() &&
           static_cast<int64_t>(p.running.size()) < cfg.max_num_seqs && budget_left() > 0 &&
           decode_slot_free(p, p.waiting.front())) {
      Sequence s = p.waiting.front();
      const int64_t hit = s.admitted_before ? 0 : prefix_hit(p, s);
      s.computed += hit;
      // The least loaded rank with budget left has the most free blocks of those that could run
      // the sequence: when it cannot take it, no rank can this iteration.
      s.rank = pick_rank(p);
      const int64_t tokens = tokens_wanted(p, s, rank_budget_[static_cast<size_t>(s.rank)]);
      if (tokens == 0) break;
      if (!p.kv[static_cast<size_t>(s.rank)].admit(s.request, s.computed + tokens)) break;
      p.waiting.pop_front();
      if (!s.admitted_before) {
        p.stats.prefix_hit_tokens += hit;
        p.stats.admitted_prompt_tokens += s.prompt;
        s.admitted_before = true;
      }
      hold_decode_slot(p, s.request);
      p.running.push_back(s);
      p.in_flight.push_back(Scheduled{p.running.size() - 1, work_of(s, tokens)});
      spend(s.rank, tokens);
    }
    // A policy that held sequences back must not leave the pool idle with work in it (the
    // iteration is empty, so no sequence is served twice).
    if (p.in_flight.empty()) serve_running(p, now, false, preempted);
    if (p.in_flight.empty()) return;  // nothing to do until the next event for this pool

    IterationBatch batch;
    batch.pool = p.index;
    batch.role = p.config->role;
    batch.chips = p.config->chips;
    for (const Scheduled& s : p.in_flight) batch.sequences.push_back(s.work);
    batch.attention_dp = p.config->attention_dp;
    // The cost model prices the nominal clock; a power-managed pool may pay it slower.
    p.power->idle(now - p.last_end);
    const IterationCost cost = p.power->run(cost_model_.cost(batch), batch);
    p.last_end = now + cost.time;
    if (!(cost.time.si() > 0.0) || !std::isfinite(cost.time.si()) ||
        !std::isfinite(cost.energy.si())) {
      throw std::logic_error("iteration cost model returned a non-positive or non-finite time");
    }
    p.stats.iterations += 1;
    p.stats.busy_time += cost.time;
    p.stats.iteration_energy += cost.energy;
    p.stats.prefill_tokens += batch.prefill_tokens();
    p.stats.decode_positions += batch.decode_tokens();
    // An iteration's energy is attributed evenly to the positions it computes, so that rejected
    // MTP drafts can be charged their share when the step ends.
    const int64_t positions = batch.prefill_tokens() + batch.decode_tokens();
    p.energy_per_position = positions > 0 ? cost.energy.si() / static_cast<double>(positions) : 0.0;
    p.stats.max_batch_tokens =
        std::max(p.stats.max_batch_tokens, cfg.max_num_batched_tokens - budget_left());
    p.stats.max_batch_sequences =
        std::max(p.stats.max_batch_sequences, static_cast<int64_t>(p.in_flight.size()));
    p.busy = true;
    if (observer_ != nullptr) observe_iteration(p, now, cost);
    Event e;
    e.time = now + cost.time;
    e.kind = EventKind::kIterationEnd;
    e.pool = p.index;
    push(e);
  }

  void observe_iteration(const Pool& p, Duration now, const IterationCost& cost) const {
    ObservedIteration o;
    o.pool = p.index;
    o.start = now;
    o.end = now + cost.time;
    o.energy = cost.energy;
    for (const Scheduled& s : p.in_flight) {
      o.sequences.push_back(
          ObservedSequence{p.running[s.running_index].request, s.work.phase, s.work.new_tokens});
    }
    o.kv_blocks_used = 0;
    for (const models::KvBlockManager& kv : p.kv) {
      o.kv_blocks_used += kv.capacity_blocks() - kv.free_blocks();
    }
    o.running = static_cast<int64_t>(p.running.size());
    o.waiting = static_cast<int64_t>(p.waiting.size());
    observer_->on_iteration(o);
  }

  // Tokens a decode step yields: 1 + accepted drafts.
  int64_t decode_yield(const Pool& p, Sequence& s) {
    const MtpConfig& mtp = p.config->scheduler.mtp;
    if (mtp.depth == 0) return 1;
    if (mtp.mode == MtpConfig::Mode::kExpected) {
      s.mtp_credit += mtp.expected_tokens_per_step();
      const auto tokens = static_cast<int64_t>(std::floor(s.mtp_credit));
      s.mtp_credit -= static_cast<double>(tokens);
      return tokens;
    }
    int64_t tokens = 1;
    while (tokens <= mtp.depth && mtp_rng_.next_unit() < mtp.acceptance) ++tokens;
    return tokens;
  }

  void deliver(int64_t request, Duration now) {
    RequestRecord& rec = trace_.records[static_cast<size_t>(request)];
    Duration& last = last_token_[static_cast<size_t>(request)];
    if (!delivered_any_[static_cast<size_t>(request)]) {
      rec.first_token = now;
      delivered_any_[static_cast<size_t>(request)] = true;
      // One gap per later token at most: sized once rather than regrown token by token (the
      // reallocations' copies were a tenth of a long validate run).
      rec.itl.reserve(static_cast<size_t>(std::max<int64_t>(0, rec.output_tokens - 1)));
    } else {
      rec.itl.push_back(now - last);
    }
    last = now;
  }

  // Whether the prefill pool may admit `s` under a slot-reserving hand-off: it holds a slot
  // already (readmitted after a preemption) or one is free.
  bool decode_slot_free(const Pool& p, const Sequence& s) const {
    if (!handoff_->reserves_decode_slot() || p.config->role != PoolRole::kPrefill) return true;
    return holds_decode_slot_[static_cast<size_t>(s.request)] ||
           decode_slots_held_ < pools_.back().config->scheduler.max_num_seqs;
  }
  void hold_decode_slot(const Pool& p, int64_t request) {
    if (!handoff_->reserves_decode_slot() || p.config->role != PoolRole::kPrefill) return;
    if (holds_decode_slot_[static_cast<size_t>(request)]) return;
    holds_decode_slot_[static_cast<size_t>(request)] = true;
    ++decode_slots_held_;
  }

  void finish(int64_t request, Duration now) {
    if (holds_decode_slot_[static_cast<size_t>(request)]) {
      holds_decode_slot_[static_cast<size_t>(request)] = false;
      --decode_slots_held_;
    }
    trace_.records[static_cast<size_t>(request)].finished = now;
    trace_.stats.window_end = std::max(trace_.stats.window_end, now);
    ++finished_;
    --in_flight_;
    send_backlog(now);
  }

  void end_iteration(Pool& p, Duration now) {
    p.busy = false;
    std::vector<bool> leaving(p.running.size(), false);
    for (const Scheduled& sched : p.in_flight) {
      Sequence& s = p.running[sched.running_index];
      const int64_t output = trace_.records[static_cast<size_t>(s.request)].output_tokens;
      if (sched.work.phase == SequencePhase::kPrefill) {
        s.computed += sched.work.new_tokens;
        if (s.prefilling()) continue;
        // Its prompt's blocks are cached for the requests admitted after it.
        const workloads::Request& r = plan_.requests[static_cast<size_t>(s.request)];
        cached_blocks_.insert(r.prefix_blocks.begin(), r.prefix_blocks.end());
        s.generated += 1;  // the prompt's last position yields a token
        if (p.config->role == PoolRole::kPrefill) {
          hand_over(p, s, now);
          leaving[sched.running_index] = true;
          continue;
        }
      } else {
        const int64_t drawn = decode_yield(p, s);
        const int64_t tokens = std::min(drawn, output - s.generated);
        p.stats.decode_steps += 1;
        p.stats.drafted_tokens += drawn;
        // Positions verified but not accepted: rejected drafts (and drafts past the output end).
        const int64_t rejected = sched.work.new_tokens - tokens;
        if (rejected > 0) {
          p.stats.rejected_positions += rejected;
          p.stats.rejected_draft_energy +=
              Energy(p.energy_per_position * static_cast<double>(rejected));
        }
        s.computed += tokens;
        s.generated += tokens;
      }
      deliver(s.request, now);
      // Keep only the blocks the accepted context needs (rejected draft positions are freed).
      models::KvBlockManager& kv = p.kv[static_cast<size_t>(s.rank)];
      kv.shrink(s.request, s.computed);
      if (s.generated >= output) {
        kv.release(s.request);
        leaving[sched.running_index] = true;
        finish(s.request, now);
      }
    }
    std::vector<Sequence> still;
    still.reserve(p.running.size());
    for (size_t i = 0; i < p.running.size(); ++i) {
      if (!leaving[i]) still.push_back(p.running[i]);
    }
    p.running.swap(still);
    p.in_flight.clear();
  }

  void hand_over(Pool& p, Sequence& s, Duration now) {
    p.kv[static_cast<size_t>(s.rank)].release(s.request);
    KvTransfer t;
    t.request_id = trace_.records[static_cast<size_t>(s.request)].id;
    t.tokens = s.computed;
    // What the prefill pool holds of the sequence: its bounded layers only up to their bound.
    t.bytes = system_.kv_bytes_per_token *
                  models::kv_token_equivalents(s.computed, p.config->bounded_kv_layers) +
              system_.state_bytes_per_sequence;
    const Duration delay = system_.kv_transfer_time(t);
    if (!(delay.si() >= 0.0) || !std::isfinite(delay.si())) {
      throw std::logic_error("KV transfer model returned a negative or non-finite time");
    }
    trace_.stats.kv_transfers += 1;
    trace_.stats.kv_transfer_bytes += t.bytes;
    if (observer_ != nullptr) {
      observer_->on_kv_transfer(
          ObservedKvTransfer{s.request, p.index, p.index + 1, now, now + delay, t.tokens, t.bytes});
    }
    Event e;
    e.time = now + delay;
    e.kind = EventKind::kKvArrival;
    e.pool = p.index + 1;
    e.sequence = s;
    e.sequence.rank = -1;  // the decode pool picks its own rank
    push(e);
  }

  void kv_arrival(const Sequence& s, Duration now) {
    deliver(s.request, now);  // the first token reaches the client with the decode pool
    if (s.generated >= trace_.records[static_cast<size_t>(s.request)].output_tokens) {
      finish(s.request, now);
      return;
    }
    pools_.back().waiting.push_back(s);
  }

  void finish_stats() {
    const Duration window = trace_.stats.window();
    for (Pool& p : pools_) {
      const Duration idle = window - p.stats.busy_time;
      const Power idle_power = p.config->idle_power_per_chip * static_cast<double>(p.config->chips);
      p.stats.idle_time = idle.si() > 0.0 ? idle : Duration();
      p.stats.idle_energy = idle.si() > 0.0 ? idle_power * idle : Energy();
      p.stats.power = p.power->report();
      trace_.stats.pools.push_back(p.stats);
    }
  }

  const ServingSystem& system_;
  const IterationCostModel& cost_model_;
  const workloads::RequestPlan& plan_;
  RngStream mtp_rng_;
  SchedulerObserver* observer_;
  std::shared_ptr<const HandoffPolicy> handoff_;  // system_.handoff
  std::vector<int64_t> rank_budget_;  // tokens each attention-DP rank has left this iteration
  int64_t budget_left_ = 0;           // their sum
  std::unordered_set<int64_t> cached_blocks_;  // prefix block ids prefilled so far
  std::vector<Pool> pools_;
  std::vector<int64_t> evicted_;  // requests a KV block manager evicted, in eviction order
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  int64_t next_order_ = 0;
  std::deque<int64_t> backlog_;
  int64_t in_flight_ = 0;
  int64_t finished_ = 0;
  bool any_sent_ = false;
  std::vector<Duration> last_token_;
  std::vector<bool> delivered_any_;
  // The "reserve-decode-slot" hand-off: requests holding a decode slot (from prefill admission
  // until they finish), and how many.
  std::vector<bool> holds_decode_slot_;
  int64_t decode_slots_held_ = 0;
  ServingTrace trace_;
};

}  // namespace

Energy SchedulerStats::total_energy() const {
  Energy e;
  for (const PoolStats& p : pools) e += p.iteration_energy + p.idle_energy;
  return e;
}

ContinuousBatchingScheduler::ContinuousBatchingScheduler(const ServingSystem& system,
                                                         const IterationCostModel& cost_model)
    : system_(system), cost_model_(cost_model) {}

ServingTrace ContinuousBatchingScheduler::run(const workloads::RequestPlan& plan, uint64_t seed,
                                              SchedulerObserver* observer) const {
  validate(system_);
  return Run(system_, cost_model_, plan, seed, observer).execute();
}

}  // namespace scoville::serving
