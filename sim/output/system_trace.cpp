#include "sim/output/system_trace.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "models/activity/activity_track.hpp"
#include "models/network/flow_replay.hpp"
#include "models/network/router.hpp"
#include "sim/base/error.hpp"
#include "sim/output/link_tracks.hpp"
#include "sim/output/trace_event_writer.hpp"

namespace scoville::output {

namespace {

constexpr int kPoolPid = 1;
constexpr int kIterationThread = 1;
constexpr int kFirstStageThread = 10;
constexpr int kCollectiveThread = 1;
constexpr int kFirstLinkThread = 10;

// One network span of the timeline, replayed: where it sits and its flows.
struct Placed {
  std::string name;
  Duration start;
  Duration duration;
  const models::Replay* replay = nullptr;
  double scale = 1.0;  // replay time -> timeline time (the replay ends with the span)
  Duration lead;       // the collective library's launch and handshakes, before the flows
};

}  // namespace

std::vector<bool> selected_trace_chips(const std::vector<std::string>& wanted, int chips) {
  std::vector<bool> keep(static_cast<size_t>(chips), wanted.empty());
  for (const std::string& name : wanted) {
    size_t used = 0;
    long long chip = -1;
    try {
      chip = std::stoll(name, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != name.size() || chip < 0 || chip >= chips) {
      throw InputError(SourceLocation{"<command line>", 0, 0}, "--trace-chips",
                       "expected chip numbers 0 to " + std::to_string(chips - 1) +
                           " of the system, found '" + name + "'");
    }
    keep[static_cast<size_t>(chip)] = true;
  }
  return keep;
}

std::string render_system_trace(const models::Topology& topology, const engine::SystemSetup& setup,
                                const std::vector<engine::SystemTimelineIteration>& iterations,
                                const Provenance& provenance, const TraceOptions& options) {
  const Window window{options.window_start.value_or(Duration()),
                      options.window_end.value_or(Duration(1e300))};
  std::ostringstream out;
  out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  EventWriter events(out, options.max_events_per_thread);
  events.metadata(
      kPoolPid, 0, "process_name",
      "pool (" + setup.system.name + ", " + std::to_string(setup.mapping.chips) + " chips)");
  events.sort_index(kPoolPid, 0, "process_sort_index", kPoolPid);

  // Iterations end to end; their critical paths; the network spans to replay.
  const models::Router router(topology);
  std::map<const models::Schedule*, models::Replay> replays;  // layers repeat their schedules
  std::vector<Placed> placed;
  int64_t flow_budget = static_cast<int64_t>(options.max_events_per_thread);
  int64_t not_replayed = 0;
  std::map<int64_t, bool> stages;
  Duration cursor;
  for (const engine::SystemTimelineIteration& it : iterations) {
    const Duration start = cursor;
    cursor += it.result.time;
    if (window.overlaps(start, cursor)) {
      events.slice(kPoolPid, kIterationThread,
                   it.phase == "prefill" ? "prefill" : "decode ctx " + std::to_string(it.context),
                   it.phase, start, it.result.time,
                   arg("context", static_cast<double>(it.context)) + "," +
                       arg("weight", it.weight) + "," +
                       arg("hardware_s", it.result.hardware_time.si()) + "," +
                       arg("software_s", it.result.software_time.si()) + "," +
                       arg("network_bytes", it.result.network_bytes.si()) + "," +
                       arg("energy_J", it.result.energy.si()));
    }
    for (const engine::TimelineSpan& span : it.spans) {
      const Duration at = start + span.start;
      if (!window.overlaps(at, at + span.duration)) continue;
      const int tid = kFirstStageThread + static_cast<int>(span.stage);
      stages[span.stage] = true;
      events.slice(kPoolPid, tid, span.name, span.collective ? "network" : "op", at, span.duration,
                   arg("stage", static_cast<double>(span.stage)));
      if (!span.schedule || !(span.duration.si() > 0)) continue;
      if (flow_budget <= 0) {
        ++not_replayed;
        continue;
      }
      auto found = replays.find(span.schedule.get());
      if (found == replays.end()) {
        try {
          found = replays
                      .emplace(span.schedule.get(),
                               models::replay_schedule(topology, router, *span.schedule,
                                                       static_cast<size_t>(flow_budget)))
                      .first;
        } catch (const InputError&) {
          // A step too large to replay flow by flow (kMaxReplayFlows): shown on the path only.
          ++not_replayed;
          continue;
        }
      }
      const models::Replay& replay = found->second;
      flow_budget -= static_cast<int64_t>(replay.flows.size());
      // The library's launch and handshakes first, then the flows (stretched to the rest).
      const Duration wire = span.duration - span.library;
      const double scale = replay.end.si() > 0 ? wire.si() / replay.end.si() : 1.0;
      placed.push_back(Placed{span.name, at, span.duration, &replay, scale, span.library});
    }
  }
  events.name_thread(kPoolPid, kIterationThread, "iterations");
  for (const auto& [stage, used] : stages) {
    events.name_thread(kPoolPid, kFirstStageThread + static_cast<int>(stage),
                       "critical path, stage " + std::to_string(stage));
  }

  // Links: a track each, a span per network span it carried; chips taking part.
  const auto chips = static_cast<int>(topology.endpoints());
  const int switch_pid = 2 + chips;
  auto chip_pid = [](int32_t chip) { return 2 + chip; };
  const models::ActivityWindow activity = activity_window(options);
  LinkTracks tracks = link_tracks(topology, activity, chip_pid, switch_pid, kFirstLinkThread);
  std::vector<models::ActivityTrack>& links = tracks.tracks;
  const std::vector<std::pair<int, int>>& place = tracks.place;
  // --trace-chips: the chips kept, the links leaving or entering them, the arrows between them.
  const std::vector<bool> keep = selected_trace_chips(options.chips, chips);
  auto kept_link = [&](const models::Link& l) {
    return (topology.is_endpoint(l.from) && keep[static_cast<size_t>(l.from)]) ||
           (topology.is_endpoint(l.to) && keep[static_cast<size_t>(l.to)]) || options.chips.empty();
  };
  std::vector<bool> takes_part(static_cast<size_t>(chips), false);
  int64_t flow_id = 0;
  for (size_t k = 0; k < placed.size(); ++k) {
    const Placed& p = placed[k];
    auto at = [&](Duration t) { return p.start + p.lead + t * p.scale; };
    std::vector<bool> in_span(static_cast<size_t>(chips), false);
    for (const models::FlowRecord& f : p.replay->flows) {
      in_span[static_cast<size_t>(f.src)] = in_span[static_cast<size_t>(f.dst)] = true;
      for (const auto& [id, fraction] : f.links) {
        links[static_cast<size_t>(id)].add(at(f.start), at(f.transmitted), static_cast<int64_t>(k),
                                           f.bytes.si() * fraction);
      }
    }
    for (int c = 0; c < chips; ++c) {
      if (!in_span[static_cast<size_t>(c)] || !keep[static_cast<size_t>(c)]) continue;
      takes_part[static_cast<size_t>(c)] = true;
      events.slice(chip_pid(c), kCollectiveThread, p.name, "network", p.start, p.duration,
                   arg("replay_scale", p.scale) + "," + arg("library_s", p.lead.si()));
    }
    for (const models::FlowRecord& f : p.replay->flows) {
      if (!keep[static_cast<size_t>(f.src)] || !keep[static_cast<size_t>(f.dst)]) continue;
      ++flow_id;
      const std::string name = "send " + std::to_string(static_cast<int64_t>(f.bytes.si())) + " B";
      events.flow('s', chip_pid(f.src), kCollectiveThread, flow_id, name, "send", at(f.start));
      events.flow('f', chip_pid(f.dst), kCollectiveThread, flow_id, name, "send", at(f.delivered));
    }
  }
  bool switches_used = false;
  for (size_t id = 0; id < links.size(); ++id) {
    if (links[id].spans().empty() && links[id].dropped() == 0) continue;
    if (!kept_link(topology.link(static_cast<int32_t>(id)))) continue;
    const auto [pid, tid] = place[id];
    switches_used = switches_used || pid == switch_pid;
    const models::Link& l = topology.link(static_cast<int32_t>(id));
    for (const models::ActivitySpan& span : links[id].spans()) {
      const Duration length = span.end - span.start;
      const double capacity = l.bandwidth.si() * length.si();
      events.slice(pid, tid, placed[static_cast<size_t>(span.label)].name, "link", span.start,
                   length,
                   arg("flows", static_cast<double>(span.merged)) + "," + arg("bytes", span.bytes) +
                       "," + arg("utilisation", capacity > 0 ? span.bytes / capacity : 0.0));
    }
    events.add_dropped(pid, std::to_string(tid), links[id].dropped());
    events.name_thread(pid, tid, links[id].name());
  }
  for (int c = 0; c < chips; ++c) {
    if (!takes_part[static_cast<size_t>(c)]) continue;
    events.metadata(chip_pid(c), 0, "process_name", "chip " + std::to_string(c));
    events.sort_index(chip_pid(c), 0, "process_sort_index", chip_pid(c));
    events.name_thread(chip_pid(c), kCollectiveThread, "collectives");
  }
  if (switches_used) {
    events.metadata(switch_pid, 0, "process_name", "switches");
    events.sort_index(switch_pid, 0, "process_sort_index", switch_pid);
  }
  out << "\n],\"otherData\":{" << arg("tool", "scoville") << ","
      << arg("tool_version", provenance.tool_version) << "," << arg("git_sha", provenance.git_sha)
      << "," << arg("model", setup.model.name()) << "," << arg("system", setup.system.name) << ","
      << arg("max_events_per_thread", static_cast<double>(options.max_events_per_thread)) << ","
      << arg("events_dropped", static_cast<double>(events.dropped_total())) << ","
      << arg("transfers_shown", static_cast<double>(flow_id)) << ","
      << arg("network_spans_not_replayed", static_cast<double>(not_replayed)) << "}}\n";
  return out.str();
}

}  // namespace scoville::output
