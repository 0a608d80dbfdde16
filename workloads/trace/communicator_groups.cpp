#include "workloads/trace/communicator_groups.hpp"

#include <set>
#include <sstream>

namespace scoville::workloads {

std::vector<std::vector<int64_t>> group_instances(const ParallelDegrees& degrees,
                                                  const std::string& group, int64_t stage) {
  const int64_t tp = degrees.tp;
  const int64_t attn_dp = degrees.attn_dp;
  const int64_t attn_tp = tp / attn_dp;
  std::vector<std::vector<int64_t>> out;
  for (int64_t replica = 0; replica < degrees.dp; ++replica) {
    const int64_t base = (replica * degrees.pp + stage) * tp;
    if (group == "attn_tp") {
      for (int64_t g = 0; g < attn_dp; ++g) {
        std::vector<int64_t> members;
        for (int64_t i = 0; i < attn_tp; ++i) members.push_back(base + g * attn_tp + i);
        out.push_back(members);
      }
    } else if (group == "attn_dp") {
      for (int64_t i = 0; i < attn_tp; ++i) {
        std::vector<int64_t> members;
        for (int64_t g = 0; g < attn_dp; ++g) members.push_back(base + g * attn_tp + i);
        out.push_back(members);
      }
    } else if (group == "ep" && degrees.ep > 1 && degrees.ep < tp) {
      for (int64_t g = 0; g < tp / degrees.ep; ++g) {  // tp / ep EP groups of consecutive ranks
        std::vector<int64_t> members;
        for (int64_t i = 0; i < degrees.ep; ++i) members.push_back(base + g * degrees.ep + i);
        out.push_back(members);
      }
    } else {  // tp, ep = tp, and the pp pairs use the whole block
      std::vector<int64_t> members;
      for (int64_t i = 0; i < tp; ++i) members.push_back(base + i);
      out.push_back(members);
    }
  }
  return out;
}

int64_t stage_of_rank(const ParallelDegrees& degrees, int64_t rank) {
  return (rank / degrees.tp) % degrees.pp;
}

Communicators assign_communicators(const ParallelDegrees& degrees, int64_t world,
                                   const std::vector<std::string>& groups) {
  Communicators out;
  const std::set<std::string> names(groups.begin(), groups.end());
  int64_t next = 1;
  for (const std::string& name : names) {
    for (int64_t stage = 0; stage < degrees.pp; ++stage) {
      for (const std::vector<int64_t>& members : group_instances(degrees, name, stage)) {
        if (static_cast<int64_t>(members.size()) >= world) continue;
        const int64_t id = next++;
        out.members[id] = members;
        for (const int64_t rank : members) out.ids[rank][name] = id;
      }
    }
  }
  return out;
}

std::string render_communicators_json(const Communicators& c) {
  std::ostringstream o;
  o << "{";
  bool first = true;
  for (const auto& [id, members] : c.members) {
    o << (first ? "\n" : ",\n") << "  \"" << id << "\": [";
    for (size_t i = 0; i < members.size(); ++i) o << (i ? ", " : "") << members[i];
    o << "]";
    first = false;
  }
  o << (first ? "}\n" : "\n}\n");
  return o.str();
}

}  // namespace scoville::workloads
