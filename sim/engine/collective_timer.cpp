#include "sim/engine/collective_timer.hpp"

#include <set>

#include "sim/base/error.hpp"
#include "workloads/trace/communicator_groups.hpp"

namespace scoville::engine {

std::string network_name(workloads::CollectiveKind kind) {
  switch (kind) {
    case workloads::CollectiveKind::kAllReduce:
      return "all_reduce";
    case workloads::CollectiveKind::kAllGather:
      return "all_gather";
    case workloads::CollectiveKind::kReduceScatter:
      return "reduce_scatter";
    case workloads::CollectiveKind::kAllToAll:
      return "all_to_all";
    case workloads::CollectiveKind::kBroadcast:
      return "broadcast";
    case workloads::CollectiveKind::kSend:
    case workloads::CollectiveKind::kRecv:
      return "send_recv";
  }
  return "send_recv";
}

// Trace bytes (NCCL count convention, per chip) -> the network's size S (nccl-tests convention,
// models/network/collective.hpp): all-gather's S is the gathered output and reduce-scatter's the
// input, n times what one chip contributes or keeps.
Bytes network_size(const workloads::Collective& c) {
  if (c.kind == workloads::CollectiveKind::kAllGather ||
      c.kind == workloads::CollectiveKind::kReduceScatter) {
    return c.bytes * static_cast<double>(c.group_size);
  }
  return c.bytes;
}

namespace {

Bytes schedule_bytes(const models::Schedule& schedule) {
  Bytes total;
  for (const models::Step& s : schedule) {
    Bytes step;
    for (const models::Transfer& t : s.transfers) step += t.bytes;
    const double n = static_cast<double>(s.all_pairs_members.size());
    step += s.all_pairs_bytes * (n * (n - 1));
    total += step * static_cast<double>(s.repeat);
  }
  return total;
}

// Every step's all-pairs exchange written out as transfers (for merging groups).
models::Step explicit_step(const models::Step& s) {
  models::Step out = s;
  out.all_pairs_members.clear();
  out.all_pairs_bytes = Bytes();
  for (int32_t a : s.all_pairs_members) {
    for (int32_t b : s.all_pairs_members) {
      if (a != b) out.transfers.push_back({a, b, s.all_pairs_bytes});
    }
  }
  return out;
}

}  // namespace

CollectiveTimer::CollectiveTimer(const models::Topology& topology,
                                 const workloads::ParallelDegrees& degrees, int64_t chips,
                                 int64_t first_endpoint)
    : topology_(&topology),
      network_(topology),
      degrees_(degrees),
      chips_(chips),
      first_(first_endpoint) {
  if (first_endpoint < 0 || first_endpoint + chips > topology.endpoints()) {
    const std::string after =
        first_endpoint > 0 ? " from endpoint " + std::to_string(first_endpoint) : "";
    throw InputError(SourceLocation{}, "mapping.chips",
                     "the mapping uses " + std::to_string(chips) + " chips" + after +
                         " but the system has " + std::to_string(topology.endpoints()));
  }
}

std::vector<std::vector<int32_t>> CollectiveTimer::groups(const std::string& group,
                                                          int64_t stage) const {
  std::vector<std::vector<int32_t>> out;
  for (const std::vector<int64_t>& ranks : workloads::group_instances(degrees_, group, stage)) {
    std::vector<int32_t> members;
    for (const int64_t r : ranks) members.push_back(static_cast<int32_t>(first_ + r));
    out.push_back(std::move(members));
  }
  return out;
}

models::Communicator CollectiveTimer::communicator(const std::vector<int32_t>& members) const {
  return communicator_of(*topology_, members);
}

models::Communicator communicator_of(const models::Topology& topology,
                                     const std::vector<int32_t>& members) {
  const std::set<int32_t> in(members.begin(), members.end());
  models::Communicator c;
  std::map<int64_t, std::vector<int32_t>> domains;
  for (int32_t e : topology.ring_order()) {
    if (in.count(e) == 0) continue;
    c.ring.push_back(e);
    domains[e / topology.domain_size()].push_back(e);
  }
  for (auto& [d, m] : domains) c.domains.push_back(std::move(m));
  return c;
}

CollectiveTiming CollectiveTimer::time(const workloads::Collective& collective, int64_t stage) {
  if (collective.kind == workloads::CollectiveKind::kRecv || collective.group_size <= 1) return {};
  const auto key = std::make_tuple(static_cast<int>(collective.kind), collective.group,
                                   collective.group_size, collective.bytes.si(), stage);
  const auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  CollectiveTiming t = run(collective, stage);
  cache_.emplace(key, t);
  return t;
}

CollectiveTiming CollectiveTimer::exchange(const std::string& group, int64_t stage,
                                           Bytes per_pair) {
  models::Schedule schedule(1);
  const int64_t domain = topology_->domain_size();
  CollectiveTiming out;
  for (const auto& g : groups(group, stage)) {
    if (g.front() / domain != g.back() / domain) out.scale_out = true;
    for (int32_t a : g) {
      for (int32_t b : g) {
        if (a != b) schedule[0].transfers.push_back({a, b, per_pair});
      }
    }
  }
  if (schedule[0].transfers.empty()) return out;
  const models::ScheduleResult r = network_.time_schedule(schedule);
  out.time = r.time;
  out.energy = r.energy;
  out.bytes = schedule_bytes(schedule);
  out.algorithm = "direct";
  out.schedule = std::make_shared<const models::Schedule>(std::move(schedule));
  return out;
}

CollectiveTiming CollectiveTimer::shift(int64_t offset, Bytes bytes) {
  if (first_ + chips_ + offset > topology_->endpoints()) {
    throw InputError(SourceLocation{}, "kv_placement",
                     "a separate decode pool of " + std::to_string(chips_) + " chips needs " +
                         std::to_string(first_ + chips_ + offset) + " chips but the system has " +
                         std::to_string(topology_->endpoints()));
  }
  models::Schedule schedule(1);
  const int64_t domain = topology_->domain_size();
  CollectiveTiming out;
  for (int64_t r = 0; r < chips_; ++r) {
    const auto src = static_cast<int32_t>(first_ + r);
    const auto dst = static_cast<int32_t>(first_ + r + offset);
    if (src / domain != dst / domain) out.scale_out = true;
    schedule[0].transfers.push_back({src, dst, bytes});
  }
  const models::ScheduleResult res = network_.time_schedule(schedule);
  out.time = res.time;
  out.energy = res.energy;
  out.bytes = schedule_bytes(schedule);
  out.algorithm = "direct";
  out.schedule = std::make_shared<const models::Schedule>(std::move(schedule));
  return out;
}

CollectiveTiming CollectiveTimer::run(const workloads::Collective& collective, int64_t stage) {
  CollectiveTiming out;
  const std::vector<std::vector<int32_t>> members = groups(collective.group, stage);
  const int64_t domain = topology_->domain_size();
  for (const auto& g : members) {
    if (g.front() / domain != g.back() / domain) out.scale_out = true;
  }
  // Groups that stay inside their local domains share no link with other domains' groups, and
  // every domain is the same graph: timing the groups of the domain holding the most of them is
  // exact (the first domain when the pool starts at endpoint 0; a pool starting mid-domain may
  // fill its domains unevenly), and energy and bytes scale by the number of groups.
  double scale = 1.0;
  std::vector<std::vector<int32_t>> timed = members;
  if (!out.scale_out && collective.kind != workloads::CollectiveKind::kSend &&
      domain < topology_->endpoints() && members.size() > 1) {
    std::map<int64_t, int64_t> per_domain;
    for (const auto& g : members) ++per_domain[g.front() / domain];
    int64_t busiest = per_domain.begin()->first;
    for (const auto& [d, count] : per_domain) {
      if (count > per_domain[busiest]) busiest = d;
    }
    timed.clear();
    for (const auto& g : members) {
      if (g.front() / domain == busiest) timed.push_back(g);
    }
    scale = static_cast<double>(members.size()) / static_cast<double>(timed.size());
  }
  models::Schedule merged;
  Duration library_time;
  if (collective.kind == workloads::CollectiveKind::kSend) {
    // Pipeline hand-over: every rank of this stage to the same position of the next stage.
    // With a collective library the send pays its call cost and protocol (those of the first
    // pair, the same for every pair of the stage).
    Bytes bytes = collective.bytes;
    out.algorithm = "direct";
    if (topology_->collective_library()) {
      const int32_t a = members.front().front();
      const auto b = static_cast<int32_t>(a + degrees_.tp);
      models::Communicator pair;
      pair.ring = {a, b};
      pair.domains = a / domain == b / domain ? std::vector<std::vector<int32_t>>{{a, b}}
                                              : std::vector<std::vector<int32_t>>{{a}, {b}};
      const models::CollectiveResult one =
          network_.run_collective("send_recv", pair, collective.bytes);
      library_time = one.library_time;
      bytes = collective.bytes / one.efficiency;
      out.algorithm = "direct/" + one.protocol;
    }
    models::Step step;
    step.label = "pp send";
    for (const auto& g : members) {
      for (int32_t r : g) {
        const int32_t peer = static_cast<int32_t>(r + degrees_.tp);
        if (peer / domain != r / domain) out.scale_out = true;
        step.transfers.push_back({r, peer, bytes});
      }
    }
    merged.push_back(step);
  } else {
    const std::string name = network_name(collective.kind);
    const Bytes size = network_size(collective);
    // The policy's algorithm for one instance, then that algorithm on every instance at once.
    const models::Communicator first = communicator(members.front());
    const models::CollectiveResult one = network_.run_collective(name, first, size);
    out.algorithm = one.algorithm + (one.protocol.empty() ? "" : "/" + one.protocol);
    // The protocol's wire bytes: the payload over its efficiency (LL's flags, ...).
    const Bytes wire = size / one.efficiency;
    if (timed.size() == 1) {
      models::Schedule only = models::collective(name).find(one.algorithm)->expand(first, wire);
      out.time = one.timing.time;
      out.library_time = one.library_time;
      out.energy = one.timing.energy * scale;
      out.bytes = schedule_bytes(only) * scale;
      out.schedule = std::make_shared<const models::Schedule>(std::move(only));
      return out;
    }
    // The definition must outlive the loop: find() points into it (a temporary here freed the
    // algorithm before its first use; AddressSanitizer caught it on several instances).
    const models::CollectiveDef def = models::collective(name);
    const models::Algorithm* algorithm = def.find(one.algorithm);
    library_time = one.library_time;
    for (const auto& g : timed) {
      const models::Schedule s = algorithm->expand(communicator(g), wire);
      for (size_t i = 0; i < s.size(); ++i) {
        const models::Step e = explicit_step(s[i]);
        if (i >= merged.size()) {
          merged.push_back(e);
        } else {
          merged[i].transfers.insert(merged[i].transfers.end(), e.transfers.begin(),
                                     e.transfers.end());
        }
      }
    }
  }
  const models::ScheduleResult r = network_.time_schedule(merged);
  out.time = r.time + library_time;  // the library's launch and handshakes, once per call
  out.library_time = library_time;
  out.energy = r.energy * scale;
  out.bytes = schedule_bytes(merged) * scale;
  out.schedule = std::make_shared<const models::Schedule>(std::move(merged));
  return out;
}

}  // namespace scoville::engine
