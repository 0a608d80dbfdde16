#include "sim/output/network_trace.hpp"

#include <map>
#include <sstream>
#include <vector>

#include "models/activity/activity_track.hpp"
#include "sim/output/link_tracks.hpp"
#include "sim/output/trace_event_writer.hpp"

namespace scoville::output {

namespace {

constexpr int kStepThread = 1;
constexpr int kFirstLinkThread = 10;

}  // namespace

std::string render_network_trace(const models::Topology& topology, const models::Replay& replay,
                                 const std::string& title, const Provenance& provenance,
                                 const TraceOptions& options) {
  const Window window{options.window_start.value_or(Duration()),
                      options.window_end.value_or(Duration(1e300))};
  const models::ActivityWindow activity = activity_window(options);
  const auto chips = static_cast<int>(topology.endpoints());
  const int switch_pid = chips + 1;  // every switch's outgoing links share one process

  // Links: one track each, a span per step from the first flow starting on it to the last one
  // finishing sending; where a link's thread lives (process and tid).
  LinkTracks tracks = link_tracks(
      topology, activity, [](int32_t chip) { return chip + 1; }, switch_pid, kFirstLinkThread);
  std::vector<models::ActivityTrack>& links = tracks.tracks;
  const std::vector<std::pair<int, int>>& place = tracks.place;
  for (const models::FlowRecord& f : replay.flows) {
    for (const auto& [id, fraction] : f.links) {
      links[static_cast<size_t>(id)].add(f.start, f.transmitted, f.step, f.bytes.si() * fraction);
    }
  }

  std::ostringstream out;
  out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  EventWriter events(out, options.max_events_per_thread);
  // Only the chips that send or receive, and the links that carry something, get threads.
  std::vector<bool> takes_part(static_cast<size_t>(chips), false);
  for (const models::FlowRecord& f : replay.flows) {
    takes_part[static_cast<size_t>(f.src)] = takes_part[static_cast<size_t>(f.dst)] = true;
  }
  bool switches_used = false;
  for (size_t id = 0; id < links.size(); ++id) {
    const bool used = !links[id].spans().empty() || links[id].dropped() > 0;
    switches_used = switches_used || (used && place[id].first == switch_pid);
  }
  for (int c = 0; c < chips; ++c) {
    if (!takes_part[static_cast<size_t>(c)]) continue;
    events.metadata(c + 1, 0, "process_name", "chip " + std::to_string(c));
    events.sort_index(c + 1, 0, "process_sort_index", c + 1);
  }
  if (switches_used) {
    events.metadata(switch_pid, 0, "process_name", "switches");
    events.sort_index(switch_pid, 0, "process_sort_index", switch_pid);
  }
  // Steps: every chip taking part is in every step of the schedule (some only wait).
  std::vector<std::vector<double>> sent(static_cast<size_t>(chips),
                                        std::vector<double>(replay.steps.size(), 0.0));
  for (const models::FlowRecord& f : replay.flows) {
    sent[static_cast<size_t>(f.src)][static_cast<size_t>(f.step)] += f.bytes.si();
  }
  for (int c = 0; c < chips; ++c) {
    if (!takes_part[static_cast<size_t>(c)]) continue;
    for (size_t k = 0; k < replay.steps.size(); ++k) {
      const models::StepSpan& step = replay.steps[k];
      if (!window.overlaps(step.start, step.end)) continue;
      const Duration length = step.end - step.start;
      events.slice(c + 1, kStepThread,
                   step.label.empty() ? "step " + std::to_string(k) : step.label, "step",
                   step.start, length,
                   arg("step", static_cast<double>(k)) + "," +
                       arg("flows", static_cast<double>(step.flows)) + "," +
                       arg("bytes_sent", sent[static_cast<size_t>(c)][k]));
      events.counter(c + 1, "sent bandwidth", step.start, "GB/s",
                     length.si() > 0 ? sent[static_cast<size_t>(c)][k] / length.si() / 1e9 : 0);
    }
    if (window.overlaps(replay.end, replay.end)) {
      events.counter(c + 1, "sent bandwidth", replay.end, "GB/s", 0.0);
    }
    events.name_thread(c + 1, kStepThread, title);
  }
  for (size_t id = 0; id < links.size(); ++id) {
    if (links[id].spans().empty() && links[id].dropped() == 0) continue;
    const auto [pid, tid] = place[id];
    const models::Link& l = topology.link(static_cast<int32_t>(id));
    for (const models::ActivitySpan& span : links[id].spans()) {
      if (!window.overlaps(span.start, span.end)) continue;
      const Duration length = span.end - span.start;
      const double capacity = l.bandwidth.si() * length.si();
      events.slice(pid, tid, "step " + std::to_string(span.label), "link", span.start, length,
                   arg("flows", static_cast<double>(span.merged)) + "," + arg("bytes", span.bytes) +
                       "," + arg("utilisation", capacity > 0 ? span.bytes / capacity : 0.0));
    }
    events.add_dropped(pid, std::to_string(tid), links[id].dropped());
    events.name_thread(pid, tid, links[id].name());
  }
  // Arrows from the sender's step to the receiver's, at start and delivery.
  int64_t flow_id = 0;
  for (const models::FlowRecord& f : replay.flows) {
    ++flow_id;
    if (!window.overlaps(f.start, f.delivered)) continue;
    const std::string name = "send " + std::to_string(static_cast<int64_t>(f.bytes.si())) + " B";
    events.flow('s', f.src + 1, kStepThread, flow_id, name, "send", f.start);
    events.flow('f', f.dst + 1, kStepThread, flow_id, name, "send", f.delivered);
  }
  out << "\n],\"otherData\":{" << arg("tool", "scoville") << ","
      << arg("tool_version", provenance.tool_version) << "," << arg("git_sha", provenance.git_sha)
      << "," << arg("collective", title) << ","
      << arg("max_events_per_thread", static_cast<double>(options.max_events_per_thread)) << ","
      << arg("events_dropped", static_cast<double>(events.dropped_total())) << ","
      << arg("flows_not_shown", static_cast<double>(replay.flows_not_recorded)) << "}}\n";
  return out.str();
}

}  // namespace scoville::output
