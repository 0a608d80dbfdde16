#include "sim/output/perfetto_trace.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "sim/base/error.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/output/json_text.hpp"

namespace scoville::output {

namespace {

// Thread ids within each chip's process.
constexpr int kIterationThread = 1;
constexpr int kLayerThread = 2;
constexpr int kOpThread = 3;

double to_us(Duration d) { return d.si() * 1e6; }

class EventWriter {
 public:
  explicit EventWriter(std::ostringstream& out) : out_(out) {}

  void metadata(int pid, int tid, const char* what, const std::string& name) {
    begin();
    out_ << "{\"ph\":\"M\",\"pid\":" << pid << ",\"tid\":" << tid << ",\"name\":\"" << what
         << "\",\"args\":{\"name\":\"" << json_escape(name) << "\"}}";
  }
  void sort_index(int pid, int tid, const char* what, int index) {
    begin();
    out_ << "{\"ph\":\"M\",\"pid\":" << pid << ",\"tid\":" << tid << ",\"name\":\"" << what
         << "\",\"args\":{\"sort_index\":" << index << "}}";
  }
  void slice(int pid, int tid, const std::string& name, const std::string& category, Duration start,
             Duration duration, const std::string& args_json) {
    begin();
    out_ << "{\"ph\":\"X\",\"pid\":" << pid << ",\"tid\":" << tid << ",\"name\":\""
         << json_escape(name) << "\",\"cat\":\"" << json_escape(category)
         << "\",\"ts\":" << json_number(to_us(start)) << ",\"dur\":" << json_number(to_us(duration))
         << ",\"args\":{" << args_json << "}}";
  }
  void counter(int pid, const char* name, Duration at, const char* series, double value) {
    begin();
    out_ << "{\"ph\":\"C\",\"pid\":" << pid << ",\"name\":\"" << name
         << "\",\"ts\":" << json_number(to_us(at)) << ",\"args\":{\"" << series
         << "\":" << json_number(value) << "}}";
  }

 private:
  void begin() {
    out_ << (first_ ? "\n" : ",\n");
    first_ = false;
  }
  std::ostringstream& out_;
  bool first_ = true;
};

std::string arg(const char* key, double value) {
  return std::string("\"") + key + "\":" + json_number(value);
}
std::string arg(const char* key, const std::string& value) {
  return std::string("\"") + key + "\":\"" + json_escape(value) + "\"";
}

struct Window {
  Duration start;
  Duration end;
  bool overlaps(Duration a, Duration b) const { return b >= start && a < end; }
};

void write_chip(EventWriter& events, int pid, const stats::ChipResult& chip, const Window& window) {
  events.metadata(pid, 0, "process_name", "chip " + chip.chip);
  events.sort_index(pid, 0, "process_sort_index", pid);
  events.metadata(pid, kIterationThread, "thread_name", "iterations");
  events.metadata(pid, kLayerThread, "thread_name", "layers");
  events.metadata(pid, kOpThread, "thread_name", "ops");
  for (int tid : {kIterationThread, kLayerThread, kOpThread}) {
    events.sort_index(pid, tid, "thread_sort_index", tid);
  }

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

  std::ostringstream out;
  out << "{\"displayTimeUnit\":\"ns\",\"otherData\":{" << arg("tool", "scoville") << ","
      << arg("tool_version", provenance.tool_version) << "," << arg("git_sha", provenance.git_sha)
      << "," << arg("seed", static_cast<double>(provenance.seed)) << ","
      << arg("model", result.study.model) << "},\"traceEvents\":[";
  EventWriter events(out);
  int pid = 0;
  for (const stats::ChipResult& chip : result.chips) {
    ++pid;
    if (!options.chips.empty() &&
        std::find(options.chips.begin(), options.chips.end(), chip.chip) == options.chips.end()) {
      continue;
    }
    write_chip(events, pid, chip, window);
  }
  out << "\n]}\n";
  return out.str();
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
