#include "sim/output/perfetto_trace.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "sim/base/error.hpp"
#include "sim/base/json_text.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/output/trace_event_writer.hpp"

namespace scoville::output {

namespace {

// Thread ids within each chip's process; activity tracks follow from kFirstActivityThread.
constexpr int kIterationThread = 1;
constexpr int kLayerThread = 2;
constexpr int kOpThread = 3;
constexpr int kFirstActivityThread = 10;

// One thread per recorded unit, one slice per op it worked on: from its first to its last busy
// interval on that op, with the busy share (tiles: computing; memories: serving requests,
// averaged over the channels of the thread) and the bytes moved.
void write_activity(EventWriter& events, int pid, const stats::ChipResult& chip,
                    const std::vector<models::ActivityTrack>& tracks, const Window& window) {
  for (size_t k = 0; k < tracks.size(); ++k) {
    const models::ActivityTrack& track = tracks[k];
    const int tid = kFirstActivityThread + static_cast<int>(k);
    for (const models::ActivitySpan& span : track.spans()) {
      if (!window.overlaps(span.start, span.end)) continue;
      const Duration length = span.end - span.start;
      const bool known = span.label >= 0 && static_cast<size_t>(span.label) < chip.ops.size();
      const std::string name = known ? chip.ops[static_cast<size_t>(span.label)].name : "other";
      const double units = static_cast<double>(track.units());
      const double utilisation = length.si() > 0 ? span.busy.si() / length.si() / units : 1.0;
      std::string args =
          arg("op_index", static_cast<double>(span.label)) + "," +
          arg(track.kind() == "tile" ? "blocks" : "requests", static_cast<double>(span.merged)) +
          "," + arg("busy_share", utilisation) + "," + arg("bytes", span.bytes);
      if (track.kind() != "tile") {
        args += "," + arg("GB_per_s", length.si() > 0 ? span.bytes / length.si() / 1e9 : 0.0);
      }
      events.slice(pid, tid, name, track.kind(), span.start, length, args);
    }
    events.add_dropped(pid, std::to_string(tid), track.dropped());
    events.name_thread(pid, tid, track.name());
  }
}

void write_chip(EventWriter& events, int pid, const stats::ChipResult& chip,
                const std::vector<models::ActivityTrack>* tracks, const Window& window) {
  events.metadata(pid, 0, "process_name", "chip " + chip.chip);
  events.sort_index(pid, 0, "process_sort_index", pid);

  // Where each simulated iteration starts on the chip's timeline.
  std::vector<Duration> offset(chip.iterations.size());
  Duration cursor;
  for (size_t i = 0; i < chip.iterations.size(); ++i) {
    offset[i] = cursor;
    cursor += chip.iterations[i].time;
  }
  for (size_t i = 0; i < chip.iterations.size(); ++i) {
    const stats::IterationResult& it = chip.iterations[i];
    if (!window.overlaps(offset[i], offset[i] + it.time)) continue;
    events.slice(pid, kIterationThread,
                 it.phase + " b" + std::to_string(it.batch) + " ctx" + std::to_string(it.context),
                 it.phase, offset[i], it.time,
                 arg("batch", static_cast<double>(it.batch)) + "," +
                     arg("new_tokens", static_cast<double>(it.new_tokens)) + "," +
                     arg("context", static_cast<double>(it.context)) + "," +
                     arg("weight", it.weight) + "," + arg("flops", it.flops.si()) + "," +
                     arg("hbm_bytes", it.hbm_bytes.si()) + "," +
                     arg("energy_J", it.energy.total().si()));
  }

  // Layers: the span of their ops (ops of one iteration run one after another).
  struct Span {
    Duration start;
    Duration end;
  };
  std::map<std::pair<int, int>, Span> layers;  // (iteration, layer)
  for (const stats::OpResult& op : chip.ops) {
    const Duration start = offset[op.iteration] + op.start;
    const Duration end = start + op.duration;
    if (window.overlaps(start, end)) {
      const double seconds = op.duration.si();
      events.slice(pid, kOpThread, op.name, stats::to_string(op.bound), start, op.duration,
                   arg("layer", op.layer) + "," + arg("kind", op.kind) + "," +
                       arg("math", op.math) + "," + arg("flops", op.flops.si()) + "," +
                       arg("hbm_bytes", op.hbm_bytes.si()) + "," +
                       arg("energy_J", op.energy.total().si()) + "," +
                       arg("bound", stats::to_string(op.bound)));
      events.counter(pid, "HBM bandwidth", start, "GB/s",
                     seconds > 0 ? op.hbm_bytes.si() / seconds / 1e9 : 0.0);
      events.counter(pid, "power", start, "W",
                     seconds > 0 ? op.energy.total().si() / seconds : 0.0);
    }
    if (op.layer < 0) continue;
    auto [entry, inserted] = layers.try_emplace({op.iteration, op.layer}, Span{start, end});
    if (!inserted) {
      entry->second.start = std::min(entry->second.start, start);
      entry->second.end = std::max(entry->second.end, end);
    }
  }
  for (const auto& [key, span] : layers) {
    if (!window.overlaps(span.start, span.end)) continue;
    events.slice(pid, kLayerThread, "layer " + std::to_string(key.second), "layer", span.start,
                 span.end - span.start, arg("layer", key.second));
  }
  // Counters drop to zero when the chip's simulated work ends.
  if (window.overlaps(cursor, cursor)) {
    events.counter(pid, "HBM bandwidth", cursor, "GB/s", 0.0);
    events.counter(pid, "power", cursor, "W", 0.0);
  }
  events.name_thread(pid, kIterationThread, "iterations");
  events.name_thread(pid, kLayerThread, "layers");
  events.name_thread(pid, kOpThread, "ops");
  if (tracks != nullptr) write_activity(events, pid, chip, *tracks, window);
}

}  // namespace

std::string render_perfetto_json(const engine::StudyResult& result, const Provenance& provenance,
                                 const TraceOptions& options) {
  const SourceLocation cli{"<command line>", 0, 0};
  for (const std::string& wanted : options.chips) {
    const bool known = std::any_of(result.chips.begin(), result.chips.end(),
                                   [&](const stats::ChipResult& c) { return c.chip == wanted; });
    if (!known) {
      std::string names;
      for (const stats::ChipResult& c : result.chips) names += (names.empty() ? "" : ", ") + c.chip;
      throw InputError(cli, "--trace-chips",
                       "no chip '" + wanted + "' in this study (chips: " + names + ")");
    }
  }
  Window window{options.window_start.value_or(Duration()),
                options.window_end.value_or(Duration(1e300))};

  // Events first, then otherData (which reports what the cap left out).
  std::ostringstream out;
  out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  EventWriter events(out, options.max_events_per_thread);
  int pid = 0;
  for (size_t c = 0; c < result.chips.size(); ++c) {
    const stats::ChipResult& chip = result.chips[c];
    ++pid;
    if (!options.chips.empty() &&
        std::find(options.chips.begin(), options.chips.end(), chip.chip) == options.chips.end()) {
      continue;
    }
    write_chip(events, pid, chip, c < result.activity.size() ? &result.activity[c] : nullptr,
               window);
  }
  out << "\n],\"otherData\":{" << arg("tool", "scoville") << ","
      << arg("tool_version", provenance.tool_version) << "," << arg("git_sha", provenance.git_sha)
      << "," << arg("seed", static_cast<double>(provenance.seed)) << ","
      << arg("model", result.study.model) << ","
      << arg("max_events_per_thread", static_cast<double>(options.max_events_per_thread)) << ","
      << arg("events_dropped", static_cast<double>(events.dropped_total())) << "}}\n";
  return out.str();
}

models::ActivityWindow activity_window(const TraceOptions& options) {
  models::ActivityWindow window;
  if (options.window_start) window.start = *options.window_start;
  if (options.window_end) window.end = *options.window_end;
  window.max_spans = options.max_events_per_thread;
  return window;
}

void parse_trace_max_events(long long value, TraceOptions& options) {
  if (value < 1) {
    throw InputError(SourceLocation{"<command line>", 0, 0}, "--trace-max-events",
                     "expected at least 1, got " + std::to_string(value));
  }
  options.max_events_per_thread = static_cast<size_t>(value);
}

void parse_trace_window(const std::string& text, TraceOptions& options) {
  const SourceLocation cli{"<command line>", 0, 0};
  const size_t colon = text.find(':');
  if (colon == std::string::npos) {
    throw InputError(
        cli, "--trace-window",
        "expected START:END with units (e.g. '0 s:2 ms' or '1 ms:'), got '" + text + "'");
  }
  auto side = [&](const std::string& part, std::optional<Duration>& into) {
    if (part.empty()) return;
    try {
      into = parse<Duration>(part);
    } catch (const UnitParseError& e) {
      throw InputError(cli, "--trace-window", e.what());
    }
  };
  side(text.substr(0, colon), options.window_start);
  side(text.substr(colon + 1), options.window_end);
  if (options.window_start && options.window_end && *options.window_end <= *options.window_start) {
    throw InputError(cli, "--trace-window", "END must be after START in '" + text + "'");
  }
}

}  // namespace scoville::output
