#include "sim/output/serving_trace.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <utility>

#include "sim/output/trace_event_writer.hpp"

namespace scoville::output {

// ---- recording ------------------------------------------------------------------------------

template <typename T>
T& ServingTimelineRecorder::at(std::vector<T>& v, int64_t i) {
  const auto index = static_cast<size_t>(i);
  if (v.size() <= index) v.resize(index + 1);
  return v[index];
}

void ServingTimelineRecorder::on_iteration(const serving::ObservedIteration& o) {
  Iteration it;
  it.pool = o.pool;
  it.start = o.start;
  it.end = o.end;
  it.energy = o.energy;
  it.kv_blocks_used = o.kv_blocks_used;
  it.running = o.running;
  it.waiting = o.waiting;
  const size_t index = iterations_.size();
  for (const serving::ObservedSequence& s : o.sequences) {
    const bool prefill = s.phase == serving::SequencePhase::kPrefill;
    (prefill ? it.prefill_sequences : it.decode_sequences) += 1;
    (prefill ? it.prefill_tokens : it.decode_tokens) += s.new_tokens;
    // A running sequence is in every iteration of its pool until it leaves, so its iterations
    // of one phase join into one segment; a gap means it waited.
    std::vector<Segment>& segments = at(segments_, s.request);
    if (!segments.empty() && segments.back().pool == o.pool && segments.back().phase == s.phase &&
        segments.back().end == o.start) {
      segments.back().end = o.end;
      segments.back().iterations += 1;
      segments.back().tokens += s.new_tokens;
    } else {
      segments.push_back(Segment{o.pool, s.phase, o.start, o.end, 1, s.new_tokens});
    }
    std::optional<size_t>& awaiting = at(awaiting_, s.request);
    if (awaiting && transfers_[*awaiting].transfer.to_pool == o.pool) {
      transfers_[*awaiting].to_iteration = index;
      awaiting.reset();
    }
  }
  at(last_iteration_, o.pool) = index;
  iterations_.push_back(it);
}

void ServingTimelineRecorder::on_preemption(int /*pool*/, int64_t request, Duration at_time) {
  at(preemptions_, request).push_back(at_time);
}

void ServingTimelineRecorder::on_kv_transfer(const serving::ObservedKvTransfer& t) {
  // The hand-over happens as the prefill pool's latest iteration ends.
  at(awaiting_, t.request) = transfers_.size();
  transfers_.push_back(Transfer{t, at(last_iteration_, t.from_pool), std::nullopt});
}

const std::vector<ServingTimelineRecorder::Segment>& ServingTimelineRecorder::segments(
    int64_t request) const {
  static const std::vector<Segment> none;
  const auto i = static_cast<size_t>(request);
  return i < segments_.size() ? segments_[i] : none;
}

const std::vector<Duration>& ServingTimelineRecorder::preemptions(int64_t request) const {
  static const std::vector<Duration> none;
  const auto i = static_cast<size_t>(request);
  return i < preemptions_.size() ? preemptions_[i] : none;
}

// ---- rendering ------------------------------------------------------------------------------

namespace {

constexpr int kIterationThread = 1;

double ms(Duration d) { return d.si() * 1e3; }

std::string iteration_name(const ServingTimelineRecorder::Iteration& it) {
  if (it.decode_sequences == 0) return "prefill";
  if (it.prefill_sequences == 0) return "decode";
  return "mixed";
}

// A piece of a request's life at the third level of its thread.
struct Piece {
  std::string name;
  Duration start;
  Duration end;
  std::string args;
};

class Renderer {
 public:
  Renderer(const serving::ServingSystem& system, const serving::ServingResult& result,
           const ServingTimelineRecorder& recorder, const TraceOptions& options,
           std::ostringstream& out)
      : system_(system),
        result_(result),
        recorder_(recorder),
        options_(options),
        window_{options.window_start.value_or(Duration()),
                options.window_end.value_or(Duration(1e300))},
        events_(out, options.max_events_per_thread),
        requests_pid_(static_cast<int>(system.pools.size()) + 1) {}

  void render() {
    for (size_t p = 0; p < system_.pools.size(); ++p) pool(static_cast<int>(p));
    kv_arrows();
    requests();
  }

  const EventWriter& events() const { return events_; }
  int64_t requests_shown() const { return requests_shown_; }
  int64_t requests_not_shown() const { return requests_not_shown_; }
  int64_t arrows_shown() const { return arrows_shown_; }

 private:
  std::string pool_label(int p) const {
    const serving::PoolConfig& c = system_.pools[static_cast<size_t>(p)];
    return "pool " + (c.name.empty() ? std::to_string(p) : c.name) + " (" +
           serving::to_string(c.role) + ", " + std::to_string(c.chips) + " chips)";
  }

  void pool(int p) {
    const int pid = p + 1;
    const serving::PoolConfig& config = system_.pools[static_cast<size_t>(p)];
    events_.metadata(pid, 0, "process_name", pool_label(p));
    events_.sort_index(pid, 0, "process_sort_index", pid);
    const Power idle = config.idle_power_per_chip * static_cast<double>(config.chips);
    const std::vector<ServingTimelineRecorder::Iteration>& all = recorder_.iterations();
    written_.resize(all.size(), false);
    int64_t number = 0;
    for (size_t i = 0; i < all.size(); ++i) {
      const ServingTimelineRecorder::Iteration& it = all[i];
      if (it.pool != p) continue;
      ++number;
      if (!window_.overlaps(it.start, it.end)) continue;
      const Duration length = it.end - it.start;
      const double watts = length.si() > 0 ? it.energy.si() / length.si() : 0.0;
      const int64_t sequences = it.prefill_sequences + it.decode_sequences;
      const int64_t tokens = it.prefill_tokens + it.decode_tokens;
      written_[i] = events_.slice(
          pid, kIterationThread, iteration_name(it), iteration_name(it), it.start, length,
          arg("iteration", static_cast<double>(number)) + "," +
              arg("batch_sequences", static_cast<double>(sequences)) + "," +
              arg("prefill_sequences", static_cast<double>(it.prefill_sequences)) + "," +
              arg("decode_sequences", static_cast<double>(it.decode_sequences)) + "," +
              arg("prefill_tokens", static_cast<double>(it.prefill_tokens)) + "," +
              arg("decode_tokens", static_cast<double>(it.decode_tokens)) + "," +
              arg("kv_blocks_used", static_cast<double>(it.kv_blocks_used)) + "," +
              arg("kv_blocks_free",
                  static_cast<double>(config.kv_capacity_blocks - it.kv_blocks_used)) +
              "," + arg("running", static_cast<double>(it.running)) + "," +
              arg("waiting", static_cast<double>(it.waiting)) + "," +
              arg("energy_J", it.energy.si()) + "," + arg("power_W", watts));
      counters(pid, it.start, static_cast<double>(sequences), static_cast<double>(tokens),
               static_cast<double>(it.kv_blocks_used), static_cast<double>(it.running),
               static_cast<double>(it.waiting), watts);
      // The pool idles when no iteration follows at once: every counter drops, power to idle.
      size_t next = i + 1;
      while (next < all.size() && all[next].pool != p) ++next;
      if (next == all.size() || all[next].start > it.end) {
        counters(pid, it.end, 0, 0, 0, 0, 0, idle.si());
      }
    }
    events_.name_thread(pid, kIterationThread, "scheduler iterations");
  }

  void counters(int pid, Duration at, double sequences, double tokens, double blocks,
                double running, double waiting, double watts) {
    events_.counter(pid, "batch sequences", at, "sequences", sequences);
    events_.counter(pid, "batch tokens", at, "tokens", tokens);
    events_.counter(pid, "KV blocks used", at, "blocks", blocks);
    events_.counter(pid, "running sequences", at, "sequences", running);
    events_.counter(pid, "waiting sequences", at, "sequences", waiting);
    events_.counter(pid, "power", at, "W", watts);
  }

  // Arrows only between slices that were written, so that every arrow has both ends.
  void kv_arrows() {
    const std::vector<ServingTimelineRecorder::Iteration>& all = recorder_.iterations();
    int64_t id = 0;
    for (const ServingTimelineRecorder::Transfer& t : recorder_.transfers()) {
      ++id;
      if (!t.to_iteration || !written_[t.from_iteration] || !written_[*t.to_iteration]) continue;
      const ServingTimelineRecorder::Iteration& from = all[t.from_iteration];
      const ServingTimelineRecorder::Iteration& to = all[*t.to_iteration];
      const int64_t request_id = result_.trace.records[static_cast<size_t>(t.transfer.request)].id;
      const std::string name = "KV of request " + std::to_string(request_id) + " (" +
                               std::to_string(static_cast<int64_t>(t.transfer.bytes.si())) + " B)";
      // Mid-slice ends: a slice's edges touch its neighbours' on the thread.
      events_.flow('s', from.pool + 1, kIterationThread, id, name, "kv_transfer",
                   from.start + (from.end - from.start) * 0.5);
      events_.flow('f', to.pool + 1, kIterationThread, id, name, "kv_transfer",
                   to.start + (to.end - to.start) * 0.5);
      ++arrows_shown_;
    }
  }

  void requests() {
    events_.metadata(requests_pid_, 0, "process_name", "requests");
    events_.sort_index(requests_pid_, 0, "process_sort_index", requests_pid_);
    const std::vector<serving::RequestRecord>& records = result_.trace.records;
    std::map<int64_t, const ServingTimelineRecorder::Transfer*> transfer_of;
    for (const ServingTimelineRecorder::Transfer& t : recorder_.transfers()) {
      transfer_of[t.transfer.request] = &t;
    }
    for (size_t i = 0; i < records.size(); ++i) {
      const serving::RequestRecord& r = records[i];
      if (!window_.overlaps(std::min(r.arrival, r.sent), r.finished)) continue;
      // As many request threads as slices a thread may hold: the first ones in the window.
      if (requests_shown_ >= static_cast<int64_t>(options_.max_events_per_thread)) {
        ++requests_not_shown_;
        continue;
      }
      ++requests_shown_;
      const auto found = transfer_of.find(static_cast<int64_t>(i));
      request(static_cast<int>(i) + 1, static_cast<int64_t>(i), r,
              found == transfer_of.end() ? nullptr : found->second);
    }
    in_flight_counters(records);
  }

  void slice(int tid, const std::string& name, Duration start, Duration end,
             const std::string& args) {
    if (window_.overlaps(start, end)) {
      events_.slice(requests_pid_, tid, name, "request", start, end - start, args);
    }
  }

  void request(int tid, int64_t index, const serving::RequestRecord& r,
               const ServingTimelineRecorder::Transfer* transfer) {
    // Outer slices first: when the cap cuts a thread it keeps the enclosing ones.
    if (r.arrival < r.sent) {
      slice(tid, "held by client", r.arrival, r.sent,
            arg("wait_ms", ms(r.sent - r.arrival)) + "," + arg("id", static_cast<double>(r.id)));
    }
    std::string args = arg("id", static_cast<double>(r.id)) + "," +
                       arg("input_tokens", static_cast<double>(r.input_tokens)) + "," +
                       arg("output_tokens", static_cast<double>(r.output_tokens)) + "," +
                       arg("ttft_ms", ms(r.ttft())) + "," + arg("e2el_ms", ms(r.e2el())) + "," +
                       arg("preemptions", static_cast<double>(r.preemptions));
    if (r.tpot()) args += "," + arg("tpot_ms", ms(*r.tpot()));
    slice(tid, "request " + std::to_string(r.id), r.sent, r.finished, args);
    slice(tid, "TTFT", r.sent, r.first_token, arg("ttft_ms", ms(r.ttft())));
    if (r.finished > r.first_token) {
      slice(tid, "TPOT", r.first_token, r.finished,
            arg("output_tokens", static_cast<double>(r.output_tokens)) +
                (r.tpot() ? "," + arg("tpot_ms", ms(*r.tpot())) : std::string()));
    }
    for (const Piece& piece : pieces(index, r, transfer)) {
      // Split at the first token so that every piece lies inside TTFT or TPOT.
      if (piece.start < r.first_token && r.first_token < piece.end) {
        slice(tid, piece.name, piece.start, r.first_token, piece.args);
        slice(tid, piece.name, r.first_token, piece.end, piece.args);
      } else {
        slice(tid, piece.name, piece.start, piece.end, piece.args);
      }
    }
    events_.name_thread(requests_pid_, tid,
                        "request " + std::to_string(r.id) + " (" + std::to_string(r.input_tokens) +
                            " in, " + std::to_string(r.output_tokens) + " out)");
  }

  // What the request did from send to last token: its segments, and between them the KV
  // transfer and the waits (queued, or queued again after a preemption).
  std::vector<Piece> pieces(int64_t index, const serving::RequestRecord& r,
                            const ServingTimelineRecorder::Transfer* transfer) const {
    std::vector<Piece> out;
    const std::vector<Duration>& preempted = recorder_.preemptions(index);
    auto wait = [&](Duration from, Duration to) {
      if (!(from < to)) return;
      const bool after_preemption = std::any_of(preempted.begin(), preempted.end(),
                                                [&](Duration t) { return from <= t && t <= to; });
      out.push_back(Piece{after_preemption ? "preempted" : "queued", from, to,
                          arg("wait_ms", ms(to - from))});
    };
    auto gap = [&](Duration from, Duration to) {
      if (transfer != nullptr && from <= transfer->transfer.start &&
          transfer->transfer.arrival <= to) {
        const serving::ObservedKvTransfer& t = transfer->transfer;
        wait(from, t.start);
        out.push_back(Piece{"KV transfer", t.start, t.arrival,
                            arg("tokens", static_cast<double>(t.tokens)) + "," +
                                arg("bytes", t.bytes.si()) + "," +
                                arg("transfer_ms", ms(t.arrival - t.start))});
        wait(t.arrival, to);
      } else {
        wait(from, to);
      }
    };
    Duration cursor = r.sent;
    for (const ServingTimelineRecorder::Segment& s : recorder_.segments(index)) {
      gap(cursor, s.start);
      const bool prefill = s.phase == serving::SequencePhase::kPrefill;
      out.push_back(
          Piece{prefill ? "prefill" : "decode", s.start, s.end,
                arg("pool", pool_label(s.pool)) + "," +
                    arg("iterations", static_cast<double>(s.iterations)) + "," +
                    arg(prefill ? "prompt_tokens" : "positions", static_cast<double>(s.tokens))});
      cursor = s.end;
    }
    gap(cursor, r.finished);
    return out;
  }

  // Requests sent and not finished, and arrived but held back by the client's concurrency limit;
  // the last value before the window is kept so that the window starts with the right level.
  void in_flight_counters(const std::vector<serving::RequestRecord>& records) {
    std::vector<std::pair<Duration, std::pair<int, int>>> changes;  // (time, (in flight, held))
    for (const serving::RequestRecord& r : records) {
      changes.push_back({r.arrival, {0, 1}});
      changes.push_back({r.sent, {1, -1}});
      changes.push_back({r.finished, {-1, 0}});
    }
    std::sort(changes.begin(), changes.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    int64_t in_flight = 0, held = 0;
    std::optional<std::pair<Duration, std::pair<int64_t, int64_t>>> before;
    for (size_t k = 0; k < changes.size();) {
      const Duration t = changes[k].first;
      for (; k < changes.size() && changes[k].first == t; ++k) {
        in_flight += changes[k].second.first;
        held += changes[k].second.second;
      }
      if (t < window_.start) {
        before = {t, {in_flight, held}};
        continue;
      }
      if (!(t < window_.end)) break;
      if (before) {
        point(before->first, before->second.first, before->second.second);
        before.reset();
      }
      point(t, in_flight, held);
    }
    if (before) point(before->first, before->second.first, before->second.second);
  }

  void point(Duration t, int64_t in_flight, int64_t held) {
    events_.counter(requests_pid_, "requests in flight", t, "requests",
                    static_cast<double>(in_flight));
    events_.counter(requests_pid_, "requests held by client", t, "requests",
                    static_cast<double>(held));
  }

  const serving::ServingSystem& system_;
  const serving::ServingResult& result_;
  const ServingTimelineRecorder& recorder_;
  const TraceOptions& options_;
  Window window_;
  EventWriter events_;
  int requests_pid_;
  std::vector<bool> written_;  // per recorded iteration: its slice is in the file
  int64_t requests_shown_ = 0;
  int64_t requests_not_shown_ = 0;
  int64_t arrows_shown_ = 0;
};

}  // namespace

std::string render_serving_trace(const serving::ServingSystem& system,
                                 const serving::ServingResult& result,
                                 const ServingTimelineRecorder& recorder, const std::string& title,
                                 const Provenance& provenance, const TraceOptions& options) {
  std::ostringstream out;
  out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  Renderer renderer(system, result, recorder, options, out);
  renderer.render();
  out << "\n],\"otherData\":{" << arg("tool", "scoville") << ","
      << arg("tool_version", provenance.tool_version) << "," << arg("git_sha", provenance.git_sha)
      << "," << arg("seed", static_cast<double>(provenance.seed)) << "," << arg("run", title) << ","
      << arg("max_events_per_thread", static_cast<double>(options.max_events_per_thread)) << ","
      << arg("events_dropped", static_cast<double>(renderer.events().dropped_total())) << ","
      << arg("requests_shown", static_cast<double>(renderer.requests_shown())) << ","
      << arg("requests_not_shown", static_cast<double>(renderer.requests_not_shown())) << ","
      << arg("kv_transfers", static_cast<double>(recorder.transfers().size())) << ","
      << arg("kv_arrows_shown", static_cast<double>(renderer.arrows_shown())) << "}}\n";
  return out.str();
}

}  // namespace scoville::output
