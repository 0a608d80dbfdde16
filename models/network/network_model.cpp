#include "models/network/network_model.hpp"

#include <stdexcept>

#include "models/network/flow_model.hpp"
#include "sim/base/error.hpp"

namespace scoville::models {

namespace {

std::vector<Bandwidth> link_capacities(const Topology& t) {
  std::vector<Bandwidth> out;
  out.reserve(t.links().size());
  for (const Link& l : t.links()) out.push_back(l.bandwidth);
  return out;
}

// Energy of one flow: each bit pays every link's (and entered switch's) energy on its share.
Energy flow_energy(const Topology& t, const Route& r, Bytes bytes) {
  Energy e;
  for (const auto& [id, fraction] : r.links) e += t.link(id).energy * bytes * fraction;
  return e;
}

// A per-pair all-pairs step beyond this many flows is refused rather than run for minutes.
constexpr int64_t kMaxPerPairFlows = int64_t{1} << 21;

bool covers_all(const Topology& t, const Step& step) {
  return static_cast<int64_t>(step.all_pairs_members.size()) == t.endpoints();
}

}  // namespace

StepResult NetworkModel::time_flows(const std::vector<Transfer>& transfers) const {
  const Topology& t = *topology_;
  FlowModel model(link_capacities(t));
  StepResult result;
  for (const Transfer& tr : transfers) {
    const Route& r = router_.route(tr.src, tr.dst);  // used before the next route()
    model.add_flow(FlowDemand{r.links, tr.bytes, r.latency});
    result.energy += flow_energy(t, r, tr.bytes);
  }
  result.time = model.run_to_completion();
  result.flows = static_cast<int64_t>(transfers.size());
  result.simulated = result.flows;
  return result;
}

StepResult NetworkModel::time_symmetric(const Step& step) const {
  const Topology& t = *topology_;
  const auto n = static_cast<double>(t.endpoints());
  std::vector<Bandwidth> capacity(static_cast<size_t>(t.orbit_count()));
  for (int32_t id = 0; id < t.link_count(); ++id)
    capacity[static_cast<size_t>(t.link_orbit(id))] = t.link(id).bandwidth;
  FlowModel model(capacity);
  StepResult result;
  for (int32_t s = 1; s < t.endpoints(); ++s) {
    const Route r = router_.route(s, 0);
    std::vector<double> load(capacity.size(), 0.0);
    for (const auto& [id, fraction] : r.links) {
      const int32_t orbit = t.link_orbit(id);
      load[static_cast<size_t>(orbit)] += n * fraction / static_cast<double>(t.orbit_size(orbit));
    }
    FlowDemand d{{}, step.all_pairs_bytes, r.latency};
    for (size_t j = 0; j < load.size(); ++j) {
      if (load[j] > 0) d.usage.emplace_back(static_cast<int32_t>(j), load[j]);
    }
    model.add_flow(std::move(d));
    result.energy += flow_energy(t, r, step.all_pairs_bytes) * n;
  }
  result.time = model.run_to_completion();
  result.flows = t.endpoints() * (t.endpoints() - 1);
  result.simulated = t.endpoints() - 1;
  result.symmetric = true;
  return result;
}

StepResult NetworkModel::time_step(const Step& step, bool use_symmetry) const {
  if (step.all_pairs_members.empty()) return time_flows(step.transfers);
  if (use_symmetry && covers_all(*topology_, step) && topology_->endpoint_transitive()) {
    return time_symmetric(step);
  }
  const auto members = static_cast<int64_t>(step.all_pairs_members.size());
  if (members * (members - 1) > kMaxPerPairFlows) {
    throw InputError(SourceLocation{}, "chips",
                     std::to_string(members) + " ranks exchanging all-pairs need " +
                         std::to_string(members * (members - 1)) +
                         " flows, too many to simulate one by one; the symmetric reduction needs "
                         "every chip of an endpoint-transitive topology");
  }
  std::vector<Transfer> transfers;
  for (int32_t a : step.all_pairs_members) {
    for (int32_t b : step.all_pairs_members) {
      if (a != b) transfers.push_back({a, b, step.all_pairs_bytes});
    }
  }
  return time_flows(transfers);
}

ScheduleResult NetworkModel::time_schedule(const Schedule& schedule, bool use_symmetry) const {
  ScheduleResult out;
  for (const Step& step : schedule) {
    const StepResult r = time_step(step, use_symmetry);
    const auto k = static_cast<double>(step.repeat);
    out.time += r.time * k;
    out.energy += r.energy * k;
    out.steps += step.repeat;
    out.flows += r.flows * step.repeat;
    out.simulated_flows += r.simulated;
    out.symmetric = out.symmetric || r.symmetric;
  }
  return out;
}

CollectiveResult NetworkModel::run_collective(const std::string& name, const Communicator& comm,
                                              Bytes size, const std::string& algorithm,
                                              bool use_symmetry) const {
  const CollectiveDef def = collective(name);
  const std::optional<CollectiveLibraryParams>& library = topology_->collective_library();
  if (!algorithm.empty()) {
    const Algorithm* a = def.find(algorithm);
    if (a == nullptr) {
      std::string known;
      for (const std::string& n : def.algorithm_names()) known += (known.empty() ? "" : ", ") + n;
      throw InputError(SourceLocation{}, "algorithm",
                       "unknown algorithm '" + algorithm + "' for " + name + "; known: " + known);
    }
    if (const auto why = a->not_applicable(comm)) {
      throw InputError(SourceLocation{}, "algorithm",
                       name + " algorithm '" + algorithm + "' cannot run here: " + *why);
    }
    if (a->library_only && !library) {
      throw InputError(SourceLocation{}, "algorithm",
                       name + " algorithm '" + algorithm +
                           "' needs a collective library in the system file (network.collectives)");
    }
  }
  // Candidates: an algorithm with the library's cost on top (none without a library).
  struct Candidate {
    const Algorithm* algorithm;
    LibraryCandidate library;
  };
  std::vector<Candidate> candidates;
  if (library) {
    const bool within_domain = comm.domains.size() <= 1;
    for (const LibraryCandidate& c :
         library_candidates(*library, name, comm.size(), within_domain, custom_kernels_)) {
      const Algorithm* a = def.find(c.algorithm);
      if (a == nullptr || a->not_applicable(comm)) continue;
      if (!algorithm.empty() && a->name != algorithm) continue;
      candidates.push_back({a, c});
    }
    if (candidates.empty() && !algorithm.empty()) {
      throw InputError(SourceLocation{}, "algorithm",
                       name + " algorithm '" + algorithm + "' is not offered here by the " +
                           "system's collective library (network.collectives)");
    }
  } else {
    for (const Algorithm& a : def.algorithms) {
      if (!algorithm.empty() ? a.name == algorithm : (!a.library_only && !a.not_applicable(comm)))
        candidates.push_back({&a, LibraryCandidate{}});
    }
  }
  if (candidates.empty()) {
    throw InputError(
        SourceLocation{}, "chips",
        "no " + name + " algorithm applies to " + std::to_string(comm.size()) + " ranks");
  }
  CollectiveResult best;
  bool have = false;
  for (const Candidate& c : candidates) {
    const double efficiency = library ? c.library.efficiency : 1.0;
    ScheduleResult r = time_schedule(c.algorithm->expand(comm, size / efficiency), use_symmetry);
    const Duration extra = library ? library_overhead(c.library, r.steps) : Duration(0);
    r.time += extra;
    if (!have || r.time < best.timing.time) {
      best.algorithm = c.algorithm->name;
      best.protocol = c.library.protocol;
      best.library_time = extra;
      best.efficiency = efficiency;
      best.timing = r;
      have = true;
    }
  }
  best.collective = name;
  best.size = size;
  best.ranks = comm.size();
  best.algbw = size / best.timing.time;
  best.busbw = best.algbw * def.bus_factor(comm.size());
  return best;
}

Replay replay_collective(const Topology& topology, const Communicator& comm,
                         const CollectiveResult& result, size_t max_flows) {
  const CollectiveDef def = collective(result.collective);
  const Algorithm* algorithm = def.find(result.algorithm);
  if (algorithm == nullptr) {
    throw std::invalid_argument("replay_collective: unknown algorithm '" + result.algorithm + "'");
  }
  const Router router(topology);
  return replay_schedule(topology, router, algorithm->expand(comm, result.size / result.efficiency),
                         max_flows);
}

}  // namespace scoville::models
