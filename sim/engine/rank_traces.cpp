#include "sim/engine/rank_traces.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include <yaml-cpp/yaml.h>

#include "sim/base/error.hpp"
#include "workloads/trace/chakra_conventions.hpp"
#include "workloads/trace/chakra_writer.hpp"
#include "workloads/trace/communicator_groups.hpp"

namespace scoville::engine {

namespace fs = std::filesystem;

namespace {

const SourceLocation kCli{"<command line>", 0, 0};

// Rank files of a prefix: rank -> path.
std::map<int64_t, std::string> files_of(const std::string& prefix) {
  std::map<int64_t, std::string> out;
  const fs::path p(prefix);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  const std::string stem = p.filename().string();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  const std::regex pattern(R"(^(.*)\.([0-9]{1,9})\.et$)");
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    std::smatch m;
    const std::string name = e.path().filename().string();
    if (std::regex_match(name, m, pattern) && m[1].str() == stem) {
      out[std::stoll(m[2].str())] = e.path().string();
    }
  }
  return out;
}

// The prefix of the trace: the directory's one set of *.<rank>.et files, a file of the set, or
// the prefix itself.
std::string prefix_of(const std::string& path) {
  std::error_code ec;
  const std::regex pattern(R"(^(.*)\.([0-9]{1,9})\.et$)");
  if (fs::is_directory(path, ec)) {
    std::set<std::string> stems;
    for (const fs::directory_entry& e : fs::directory_iterator(path, ec)) {
      std::smatch m;
      const std::string name = e.path().filename().string();
      if (std::regex_match(name, m, pattern)) stems.insert(m[1].str());
    }
    if (stems.empty()) {
      throw InputError(SourceLocation{path, 0, 0}, "--trace-file",
                       "no Chakra rank files (NAME.<rank>.et) in the directory");
    }
    if (stems.size() > 1) {
      std::string list;
      for (const std::string& s : stems) list += (list.empty() ? "" : ", ") + s;
      throw InputError(SourceLocation{path, 0, 0}, "--trace-file",
                       "the directory holds several traces (" + list +
                           "): give one as DIR/NAME, the prefix of its NAME.<rank>.et files");
    }
    return (fs::path(path) / *stems.begin()).string();
  }
  std::smatch m;
  if (fs::is_regular_file(path, ec) && std::regex_match(path, m, pattern)) return m[1].str();
  return path;
}

// ASTRA-sim's --comm-group-configuration: {"<id>": [ranks...]}.
std::map<std::string, std::vector<int64_t>> read_comm_groups(const std::string& file,
                                                             int64_t world) {
  const SourceLocation where{file, 0, 0};
  YAML::Node root;
  try {
    root = YAML::LoadFile(file);
  } catch (const YAML::Exception& e) {
    throw InputError(where, "--comm-groups",
                     std::string("cannot read the communicator JSON: ") + e.what());
  }
  if (!root.IsMap()) {
    throw InputError(where, "",
                     "expected a JSON object {\"<id>\": [ranks...]} (ASTRA-sim's "
                     "--comm-group-configuration)");
  }
  std::map<std::string, std::vector<int64_t>> out;
  for (const auto& item : root) {
    const std::string id = item.first.as<std::string>();
    const YAML::Node list = item.second;
    if (!list.IsSequence() || list.size() == 0) {
      throw InputError(where, id, "expected a non-empty list of ranks");
    }
    std::vector<int64_t> ranks;
    for (const YAML::Node& r : list) {
      int64_t rank = -1;
      try {
        rank = r.as<int64_t>();
      } catch (const YAML::Exception&) {
      }
      if (rank < 0 || rank >= world) {
        throw InputError(where, id,
                         "expected ranks 0.." + std::to_string(world - 1) + ", got '" +
                             r.as<std::string>() + "'");
      }
      ranks.push_back(rank);
    }
    std::sort(ranks.begin(), ranks.end());
    out[id] = ranks;
  }
  return out;
}

bool is_parallel_group(const std::string& g) {
  return g == "tp" || g == "ep" || g == "attn_tp" || g == "attn_dp" || g == "pp";
}

}  // namespace

RankTraceSet load_rank_traces(const std::string& dir_or_prefix,
                              const std::optional<std::string>& comm_groups_json) {
  RankTraceSet set;
  set.prefix = prefix_of(dir_or_prefix);
  const std::map<int64_t, std::string> files = files_of(set.prefix);
  if (files.empty()) {
    throw InputError(SourceLocation{dir_or_prefix, 0, 0}, "--trace-file",
                     "no Chakra rank files " + set.prefix +
                         ".<rank>.et: give a directory or the prefix ASTRA-sim takes as "
                         "--workload-configuration");
  }
  const auto world = static_cast<int64_t>(files.size());
  for (int64_t r = 0; r < world; ++r) {
    if (files.count(r) == 0) {
      throw InputError(SourceLocation{workloads::chakra_trace_path(set.prefix, r), 0, 0},
                       "--trace-file",
                       "rank " + std::to_string(r) + " is missing: expected ranks 0.." +
                           std::to_string(files.rbegin()->first) + " without gaps");
    }
  }
  std::map<std::string, std::vector<int64_t>> comm_groups;
  if (comm_groups_json) comm_groups = read_comm_groups(*comm_groups_json, world);

  std::vector<int64_t> all(static_cast<size_t>(world));
  for (int64_t r = 0; r < world; ++r) all[static_cast<size_t>(r)] = r;
  std::map<std::string, int64_t> counts;  // assumption -> nodes
  workloads::ChakraReadOptions read;
  read.world_size = world;
  for (int64_t r = 0; r < world; ++r) {
    RankTrace rt;
    rt.file = files.at(r);
    rt.chakra = workloads::read_chakra_trace(rt.file, read);
    const workloads::ChipTrace& t = rt.chakra.trace;
    const bool degrees_fit = t.degrees.tp * t.degrees.pp * t.degrees.dp == world;
    for (size_t i = 0; i < t.nodes.size(); ++i) {
      const workloads::TraceNode& node = t.nodes[i];
      std::vector<int64_t> members;
      if (node.kind == workloads::TraceNodeKind::kCollective) {
        const workloads::Collective& c = node.collective;
        const std::string key = "node[" + std::to_string(i) + "] (id " + std::to_string(node.id) +
                                ", '" + node.name + "')";
        const auto pg = rt.chakra.pg_names.find(node.id);
        const bool named = pg != rt.chakra.pg_names.end() && pg->second != "0";
        if (c.kind == workloads::CollectiveKind::kSend ||
            c.kind == workloads::CollectiveKind::kRecv) {
          if (c.peer < 0 || c.peer >= world || c.peer == r) {
            throw InputError(SourceLocation{rt.file, 0, 0}, key + ".comm_src/comm_dst",
                             "peer " + std::to_string(c.peer) + ": expected another rank of 0.." +
                                 std::to_string(world - 1));
          }
          const bool send = c.kind == workloads::CollectiveKind::kSend;
          members = send ? std::vector<int64_t>{r, c.peer} : std::vector<int64_t>{c.peer, r};
        } else if (named && comm_groups_json) {
          const auto g = comm_groups.find(pg->second);
          if (g == comm_groups.end()) {
            throw InputError(SourceLocation{rt.file, 0, 0}, key + ".pg_name",
                             "communicator '" + pg->second + "' is not in " + *comm_groups_json);
          }
          members = g->second;
          ++counts["collectives with pg_name: members from " + *comm_groups_json];
        } else if (is_parallel_group(c.group) && degrees_fit) {
          for (const std::vector<int64_t>& g : workloads::group_instances(
                   t.degrees, c.group, workloads::stage_of_rank(t.degrees, r))) {
            if (std::find(g.begin(), g.end(), r) != g.end()) members = g;
          }
          ++counts
              ["Scoville collectives: members from the group name and the trace's parallel "
               "degrees"];
        } else if (named) {
          throw InputError(SourceLocation{rt.file, 0, 0}, key + ".pg_name",
                           "communicator '" + pg->second +
                               "' needs ASTRA-sim's communicator JSON: give --comm-groups FILE");
        } else {
          members = all;
          ++counts["collectives without pg_name: over all " + std::to_string(world) + " ranks"];
        }
        if (std::find(members.begin(), members.end(), r) == members.end()) {
          throw InputError(SourceLocation{rt.file, 0, 0}, key + ".pg_name",
                           "the collective's group does not hold rank " + std::to_string(r));
        }
      }
      rt.members.push_back(std::move(members));
    }
    // Foreign collectives were read with the world as group size: use the group found.
    for (size_t i = 0; i < t.nodes.size(); ++i) {
      workloads::TraceNode& node = rt.chakra.trace.nodes[i];
      if (node.kind != workloads::TraceNodeKind::kCollective || node.collective.peer >= 0) continue;
      workloads::Collective& c = node.collective;
      const auto n = static_cast<int64_t>(rt.members[i].size());
      if (n != c.group_size && !is_parallel_group(c.group)) {
        const double comm_size = workloads::chakra::comm_size_of(c);
        c.group_size = n;
        c.bytes = workloads::chakra::bytes_from_comm_size(c.kind, comm_size, n);
      }
    }
    set.ranks.push_back(std::move(rt));
  }
  for (const auto& [what, n] : counts) {
    set.assumptions.push_back(what + " (" + std::to_string(n) + " nodes)");
  }
  return set;
}

}  // namespace scoville::engine
