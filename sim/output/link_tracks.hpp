// The links of a topology as timeline tracks, shared by the network timeline (`scoville net
// --trace`) and the system timeline (`run --system --trace`): one activity track per link, named
// "<from> to <to> (link i)", and the process and thread each track is drawn on (a chip's own links
// under the chip's process, every switch's links under one switch process).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "models/activity/activity_track.hpp"
#include "models/network/topology.hpp"

namespace scoville::output {

// "chip N" or "switch N".
std::string topology_node_name(const models::Topology& topology, int32_t node);

struct LinkTracks {
  std::vector<models::ActivityTrack> tracks;  // by link id
  std::vector<std::pair<int, int>> place;     // (pid, tid) by link id
};

// Threads are numbered from `first_thread` within each process.
LinkTracks link_tracks(const models::Topology& topology, const models::ActivityWindow& window,
                       const std::function<int(int32_t chip)>& chip_pid, int switch_pid,
                       int first_thread);

}  // namespace scoville::output
