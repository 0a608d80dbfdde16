#include "sim/output/link_tracks.hpp"

#include <map>

namespace scoville::output {

std::string topology_node_name(const models::Topology& topology, int32_t node) {
  return topology.is_endpoint(node) ? "chip " + std::to_string(node)
                                    : "switch " + std::to_string(node - topology.endpoints());
}

LinkTracks link_tracks(const models::Topology& topology, const models::ActivityWindow& window,
                       const std::function<int(int32_t chip)>& chip_pid, int switch_pid,
                       int first_thread) {
  LinkTracks out;
  std::map<int, int> next_tid;
  for (int32_t id = 0; id < topology.link_count(); ++id) {
    const models::Link& l = topology.link(id);
    const bool from_chip = topology.is_endpoint(l.from);
    out.tracks.emplace_back((from_chip ? "" : topology_node_name(topology, l.from) + " ") + "to " +
                                topology_node_name(topology, l.to) + " (link " +
                                std::to_string(id) + ")",
                            "link", 1, window);
    const int pid = from_chip ? chip_pid(l.from) : switch_pid;
    auto slot = next_tid.try_emplace(pid, first_thread).first;
    out.place.emplace_back(pid, slot->second++);
  }
  return out;
}

}  // namespace scoville::output
