#include "sim/engine/multi_rank_run.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>

#include "models/network/network_model.hpp"
#include "sim/base/error.hpp"
#include "sim/base/json_text.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/engine/collective_timer.hpp"
#include "sim/engine/trace_op_times.hpp"
#include "workloads/trace/chakra_conventions.hpp"

namespace scoville::engine {

namespace {

using workloads::CollectiveKind;
using workloads::TraceNode;
using workloads::TraceNodeKind;

// The compute program of a trace, for running ranks with identical work once.
std::string signature(const workloads::ChipTrace& t) {
  std::ostringstream o;
  o.precision(17);
  for (const TraceNode& n : t.nodes) {
    if (n.kind != TraceNodeKind::kCompute) continue;
    const workloads::Op& op = n.op;
    o << n.id << ' ' << static_cast<int>(op.kind) << ' ' << op.m << ' ' << op.n << ' ' << op.k
      << ' ' << op.instances << ' ' << static_cast<int>(op.weight_format) << ' '
      << static_cast<int>(op.math) << ' ' << op.flops.si() << ' ' << op.weight_bytes.si() << ' '
      << op.kv_read_bytes.si() << ' ' << op.kv_write_bytes.si() << ' '
      << op.activation_in_bytes.si() << ' ' << op.activation_out_bytes.si() << ' '
      << op.tokens_per_instance.size() << ';';
    for (const int64_t tokens : op.tokens_per_instance) o << tokens << ',';
  }
  return o.str();
}

// Compute time of every node of every rank.
std::vector<std::map<uint64_t, Duration>> compute_times(const RankTraceSet& set,
                                                        ComputeSource source,
                                                        const models::ChipParams& chip,
                                                        std::vector<std::string>* assumptions) {
  std::vector<std::map<uint64_t, Duration>> out(set.ranks.size());
  if (source == ComputeSource::kDurations) {
    int64_t missing = 0;
    for (size_t r = 0; r < set.ranks.size(); ++r) {
      const workloads::ChakraTrace& c = set.ranks[r].chakra;
      for (const TraceNode& n : c.trace.nodes) {
        if (n.kind != TraceNodeKind::kCompute) continue;
        const auto it = c.durations.find(n.id);
        if (it == c.durations.end()) ++missing;
        out[r][n.id] = it == c.durations.end() ? Duration() : it->second;
      }
    }
    assumptions->push_back(
        "compute nodes replayed with their recorded durations (scoville.duration_s, else "
        "duration_micros)");
    if (missing > 0) {
      assumptions->push_back(std::to_string(missing) +
                             " compute node(s) without a recorded duration take 0 s");
    }
    return out;
  }
  std::map<std::string, size_t> unique;
  std::vector<const workloads::ChipTrace*> programs;
  std::vector<size_t> program_of(set.ranks.size());
  for (size_t r = 0; r < set.ranks.size(); ++r) {
    const auto [it, inserted] =
        unique.emplace(signature(set.ranks[r].chakra.trace), programs.size());
    if (inserted) programs.push_back(&set.ranks[r].chakra.trace);
    program_of[r] = it->second;
  }
  const std::vector<std::map<uint64_t, Duration>> times = chip_compute_durations(programs, chip);
  for (size_t r = 0; r < set.ranks.size(); ++r) out[r] = times[program_of[r]];
  assumptions->push_back("compute nodes run on the chip model of " + chip.name + " (" +
                         std::to_string(programs.size()) +
                         " distinct rank program(s) simulated; ranks with the same work share "
                         "one)");
  return out;
}

struct Arrival {
  size_t node = 0;
  Duration ready;
};

struct Meeting {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  double comm_size = 0;
  workloads::Collective collective;
  std::vector<int64_t> members;
  std::map<int64_t, Arrival> arrived;
};

// (point-to-point, members, ordinal)
using MeetingKey = std::tuple<bool, std::vector<int64_t>, int64_t>;

std::string describe(const TraceNode& n, size_t index) {
  return "node[" + std::to_string(index) + "] (id " + std::to_string(n.id) + ", '" + n.name + "')";
}

std::string rank_list(const std::vector<int64_t>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size() && i < 16; ++i) {
    out += (i ? "," : "") + std::to_string(ranks[i]);
  }
  if (ranks.size() > 16) out += ",...";
  return "{" + out + "}";
}

class Scheduler {
 public:
  Scheduler(const RankTraceSet& set, const std::vector<std::map<uint64_t, Duration>>& times,
            const models::Topology& topology, MultiRankResult* result)
      : set_(set), times_(times), topology_(topology), network_(topology), result_(result) {
    const size_t n = set.ranks.size();
    cursor_.assign(n, 0);
    compute_free_.assign(n, Duration());
    comm_free_.assign(n, Duration());
    comm_busy_.assign(n, false);
    finish_.resize(n);
    done_.resize(n);
    index_of_.resize(n);
    ordinal_.resize(n);
    for (size_t r = 0; r < n; ++r) {
      const auto& nodes = set.ranks[r].chakra.trace.nodes;
      finish_[r].assign(nodes.size(), Duration());
      done_[r].assign(nodes.size(), false);
      for (size_t i = 0; i < nodes.size(); ++i) index_of_[r][nodes[i].id] = i;
    }
  }

  void run() {
    bool progress = true;
    while (progress) {
      progress = false;
      for (size_t r = 0; r < set_.ranks.size(); ++r) progress |= advance(r);
    }
    for (size_t r = 0; r < set_.ranks.size(); ++r) {
      const auto& nodes = set_.ranks[r].chakra.trace.nodes;
      for (size_t i = 0; i < nodes.size(); ++i) {
        if (!done_[r][i]) deadlock(r, i);
      }
    }
    for (size_t r = 0; r < set_.ranks.size(); ++r) {
      RankSummary s;
      s.rank = static_cast<int64_t>(r);
      const auto& nodes = set_.ranks[r].chakra.trace.nodes;
      for (size_t i = 0; i < nodes.size(); ++i) {
        s.finish = std::max(s.finish, finish_[r][i]);
        if (nodes[i].kind == TraceNodeKind::kCompute) {
          s.compute_time += times_[r].at(nodes[i].id);
          ++s.compute_nodes;
        } else {
          ++s.collective_nodes;
        }
      }
      result_->step_time = std::max(result_->step_time, s.finish);
      result_->ranks.push_back(s);
    }
    for (auto& [key, summary] : summaries_) result_->collectives.push_back(summary);
  }

 private:
  // Issues rank r's nodes in file order while their dependencies are done.
  bool advance(size_t r) {
    bool progress = false;
    const auto& nodes = set_.ranks[r].chakra.trace.nodes;
    while (cursor_[r] < nodes.size()) {
      const size_t i = cursor_[r];
      const TraceNode& n = nodes[i];
      Duration ready;
      for (const auto* deps : {&n.data_deps, &n.ctrl_deps}) {
        for (const uint64_t dep : *deps) {
          const size_t d = index_of_[r].at(dep);
          if (!done_[r][d]) return progress;
          ready = std::max(ready, finish_[r][d]);
        }
      }
      // A receive does not hold the rank's communication unit (ASTRA-sim's HardwareResource).
      const bool holds_comm =
          n.kind == TraceNodeKind::kCollective && n.collective.kind != CollectiveKind::kRecv;
      if (holds_comm && comm_busy_[r]) return progress;
      if (n.kind == TraceNodeKind::kCompute) {
        const Duration start = std::max(ready, compute_free_[r]);
        finish_[r][i] = start + times_[r].at(n.id);
        compute_free_[r] = finish_[r][i];
        done_[r][i] = true;
      } else {
        if (holds_comm) comm_busy_[r] = true;
        arrive(r, i, holds_comm ? std::max(ready, comm_free_[r]) : ready);
      }
      ++cursor_[r];
      progress = true;
    }
    return progress;
  }

  void arrive(size_t r, size_t i, Duration ready) {
    const RankTrace& rt = set_.ranks[r];
    const TraceNode& n = rt.chakra.trace.nodes[i];
    const std::vector<int64_t>& members = rt.members[i];
    const bool p2p =
        n.collective.kind == CollectiveKind::kSend || n.collective.kind == CollectiveKind::kRecv;
    const MeetingKey key{p2p, members, ordinal_[r][{p2p, members}]++};
    auto [it, inserted] = meetings_.try_emplace(key);
    Meeting& m = it->second;
    const double size = workloads::chakra::comm_size_of(n.collective);
    const CollectiveKind kind =
        p2p ? CollectiveKind::kSend : n.collective.kind;  // a recv meets its send
    if (inserted) {
      m.kind = kind;
      m.comm_size = size;
      m.collective = n.collective;
      m.collective.kind = kind;
      m.collective.group_size = static_cast<int64_t>(members.size());
      m.members = members;
    } else if (m.kind != kind ||
               std::fabs(m.comm_size - size) > 1e-9 * std::max(1.0, std::fabs(size))) {
      const int64_t first = m.arrived.begin()->first;
      throw InputError(SourceLocation{rt.file, 0, 0}, describe(n, i) + ".comm_type/comm_size",
                       "expected " + workloads::to_string(m.kind) + " of comm_size " +
                           format_si(m.comm_size, "B") + " as rank " + std::to_string(first) +
                           " has at this point of group " + rank_list(members) + ", found " +
                           workloads::to_string(kind) + " of " + format_si(size, "B"));
    }
    m.arrived[static_cast<int64_t>(r)] = Arrival{i, ready};
    if (m.arrived.size() < members.size()) return;
    Duration start;
    for (const auto& [rank, a] : m.arrived) start = std::max(start, a.ready);
    const Duration end = start + time_of(m);
    for (const auto& [rank, a] : m.arrived) {
      finish_[static_cast<size_t>(rank)][a.node] = end;
      done_[static_cast<size_t>(rank)][a.node] = true;
      const TraceNode& node = set_.ranks[static_cast<size_t>(rank)].chakra.trace.nodes[a.node];
      if (node.collective.kind != CollectiveKind::kRecv) {
        comm_busy_[static_cast<size_t>(rank)] = false;
        comm_free_[static_cast<size_t>(rank)] = end;
      }
    }
    meetings_.erase(it);
  }

  Duration time_of(const Meeting& m) {
    const std::string name = network_name(m.kind);
    const Bytes size = network_size(m.collective);
    const auto key = std::make_tuple(name, m.members, size.si());
    auto it = summaries_.find(key);
    if (it == summaries_.end()) {
      CollectiveSummary s;
      s.collective = name;
      s.ranks = static_cast<int64_t>(m.members.size());
      s.comm_size = m.comm_size;
      s.network_size = size;
      if (m.members.size() > 1 && size.si() > 0) {
        std::vector<int32_t> endpoints;
        for (const int64_t rank : m.members) endpoints.push_back(static_cast<int32_t>(rank));
        const models::CollectiveResult res =
            network_.run_collective(name, communicator_of(topology_, endpoints), size);
        s.time = res.timing.time;
        s.algorithm = res.algorithm;
      }
      it = summaries_.emplace(key, s).first;
    }
    ++it->second.count;
    return it->second.time;
  }

  [[noreturn]] void deadlock(size_t r, size_t i) {
    const RankTrace& rt = set_.ranks[r];
    const size_t at = std::min(cursor_[r], rt.chakra.trace.nodes.size() - 1);
    for (const auto& [key, m] : meetings_) {
      if (m.arrived.count(static_cast<int64_t>(r)) == 0) continue;
      std::vector<int64_t> absent;
      for (const int64_t member : m.members) {
        if (m.arrived.count(member) == 0) absent.push_back(member);
      }
      const size_t node = m.arrived.at(static_cast<int64_t>(r)).node;
      throw InputError(SourceLocation{rt.file, 0, 0}, describe(rt.chakra.trace.nodes[node], node),
                       "the " + workloads::to_string(m.kind) + " over ranks " +
                           rank_list(m.members) + " never completes: rank(s) " + rank_list(absent) +
                           " do not reach the matching collective (every member must issue the "
                           "same collectives over a group in the same order)");
    }
    throw InputError(SourceLocation{rt.file, 0, 0}, describe(rt.chakra.trace.nodes[at], at),
                     "the rank stops here: " + describe(rt.chakra.trace.nodes[i], i) +
                         " never runs (its dependencies wait on a collective that never "
                         "completes)");
  }

  const RankTraceSet& set_;
  const std::vector<std::map<uint64_t, Duration>>& times_;
  const models::Topology& topology_;
  models::NetworkModel network_;
  MultiRankResult* result_;
  std::vector<size_t> cursor_;
  std::vector<Duration> compute_free_;
  std::vector<Duration> comm_free_;  // one collective at a time per rank, as ASTRA-sim
  std::vector<bool> comm_busy_;
  std::vector<std::vector<Duration>> finish_;
  std::vector<std::vector<bool>> done_;
  std::vector<std::map<uint64_t, size_t>> index_of_;
  std::vector<std::map<std::pair<bool, std::vector<int64_t>>, int64_t>> ordinal_;
  std::map<MeetingKey, Meeting> meetings_;
  std::map<std::tuple<std::string, std::vector<int64_t>, double>, CollectiveSummary> summaries_;
};

}  // namespace

ComputeSource parse_compute_source(const std::string& text) {
  if (text == "chip") return ComputeSource::kChipModel;
  if (text == "durations") return ComputeSource::kDurations;
  throw InputError(SourceLocation{"<command line>", 0, 0}, "--compute",
                   "expected chip or durations, got '" + text + "'");
}

MultiRankResult run_multi_rank_trace(const MultiRankOptions& options,
                                     const config::DataPaths& paths) {
  MultiRankResult result;
  const config::SystemConfig system = config::load_system(options.system, paths);
  const models::ChipParams chip = config::load_chip(config::require_chip(system), paths);
  const models::Topology topology = config::build_network(system);
  result.system = system.name;
  result.chip = chip.name;
  const RankTraceSet set = load_rank_traces(options.trace, options.comm_groups);
  result.prefix = set.prefix;
  result.world = static_cast<int64_t>(set.ranks.size());
  if (result.world > topology.endpoints()) {
    throw InputError(SourceLocation{set.ranks.front().file, 0, 0}, "--trace-file",
                     "the trace has " + std::to_string(result.world) + " ranks but system " +
                         system.name + " has " + std::to_string(topology.endpoints()) +
                         " chips: give a system with at least as many");
  }
  result.assumptions = set.assumptions;
  result.assumptions.push_back(
      "rank r runs on chip r of the system; collectives are timed "
      "one at a time on its network");
  const std::vector<std::map<uint64_t, Duration>> times =
      compute_times(set, options.compute, chip, &result.assumptions);
  result.compute_source =
      options.compute == ComputeSource::kDurations ? "recorded durations" : "chip model";
  Scheduler scheduler(set, times, topology, &result);
  scheduler.run();
  std::map<std::string, size_t> seen;
  for (const RankTrace& rt : set.ranks) {
    for (const std::string& w : rt.chakra.warnings) {
      // One line per kind over all ranks: drop the count and place, keep the first.
      const std::string kind = w.substr(0, w.rfind(" ("));
      if (seen.emplace(kind, result.warnings.size()).second) result.warnings.push_back(w);
    }
  }
  return result;
}

std::string render_multi_rank_text(const MultiRankResult& r) {
  std::ostringstream o;
  o << "trace " << r.prefix << ".<rank>.et: " << r.world << " ranks on " << r.system << " (chip "
    << r.chip << "), compute from the " << r.compute_source << "\n";
  o << "  step time  " << format_si(r.step_time.si(), "s") << "\n";
  for (const std::string& a : r.assumptions) o << "  assumption: " << a << "\n";
  o << "  rank        finish       compute  compute nodes  collectives\n";
  for (const RankSummary& s : r.ranks) {
    char line[160];
    std::snprintf(
        line, sizeof line, "  %4lld  %12s  %12s  %13lld  %11lld\n", static_cast<long long>(s.rank),
        format_si(s.finish.si(), "s").c_str(), format_si(s.compute_time.si(), "s").c_str(),
        static_cast<long long>(s.compute_nodes), static_cast<long long>(s.collective_nodes));
    o << line;
  }
  o << "  collectives (each instance timed alone on the network):\n";
  for (const CollectiveSummary& c : r.collectives) {
    o << "    " << c.collective << " over " << c.ranks << " ranks, comm_size "
      << format_si(c.comm_size, "B") << ": " << format_si(c.time.si(), "s") << " ("
      << (c.algorithm.empty() ? "none" : c.algorithm) << ") x " << c.count << "\n";
  }
  return o.str();
}

std::string render_multi_rank_json(const MultiRankResult& r) {
  using output::json_escape;
  using output::json_number;
  std::ostringstream o;
  o << "{\n  \"system\": \"" << json_escape(r.system) << "\",\n  \"chip\": \""
    << json_escape(r.chip) << "\",\n  \"trace_prefix\": \"" << json_escape(r.prefix)
    << "\",\n  \"ranks\": " << r.world << ",\n  \"compute\": \"" << r.compute_source
    << "\",\n  \"step_time_s\": " << json_number(r.step_time.si()) << ",\n  \"per_rank\": [";
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    const RankSummary& s = r.ranks[i];
    o << (i ? ",\n    " : "\n    ") << "{\"rank\": " << s.rank
      << ", \"finish_s\": " << json_number(s.finish.si())
      << ", \"compute_s\": " << json_number(s.compute_time.si())
      << ", \"compute_nodes\": " << s.compute_nodes
      << ", \"collective_nodes\": " << s.collective_nodes << "}";
  }
  o << "\n  ],\n  \"collectives\": [";
  for (size_t i = 0; i < r.collectives.size(); ++i) {
    const CollectiveSummary& c = r.collectives[i];
    o << (i ? ",\n    " : "\n    ") << "{\"collective\": \"" << c.collective
      << "\", \"ranks\": " << c.ranks << ", \"comm_size\": " << json_number(c.comm_size)
      << ", \"network_bytes\": " << json_number(c.network_size.si())
      << ", \"time_s\": " << json_number(c.time.si()) << ", \"algorithm\": \""
      << json_escape(c.algorithm) << "\", \"count\": " << c.count << "}";
  }
  o << "\n  ],\n  \"assumptions\": [";
  for (size_t i = 0; i < r.assumptions.size(); ++i) {
    o << (i ? ", " : "") << "\"" << json_escape(r.assumptions[i]) << "\"";
  }
  o << "],\n  \"warnings\": [";
  for (size_t i = 0; i < r.warnings.size(); ++i) {
    o << (i ? ", " : "") << "\"" << json_escape(r.warnings[i]) << "\"";
  }
  o << "]\n}\n";
  return o.str();
}

}  // namespace scoville::engine
