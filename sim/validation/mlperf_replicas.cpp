#include "sim/validation/mlperf_replicas.hpp"

#include <regex>

#include "sim/validation/data_table.hpp"

namespace scoville::validation {

namespace {

constexpr int64_t kMaxReplicaChips = 1024;  // far above any serving instance; refuses absurd ones

}  // namespace

std::vector<PublishedReplica> read_mlperf_replicas(const std::string& path) {
  return parse_mlperf_replicas(read_data_file(path, "MLPerf replicas file"), path);
}

std::vector<PublishedReplica> parse_mlperf_replicas(const std::string& text,
                                                    const std::string& path) {
  std::vector<PublishedReplica> out;
  const auto read_row = [&](int number, const std::vector<std::string>& header,
                            const std::vector<std::string>& cells) {
    const DataRow r{path, number, header, cells};
    PublishedReplica p;
    p.location = r.text("location");
    if (p.location.empty() || p.location.rfind("./", 0) == 0 || p.location.back() == '/') {
      throw InputError(r.at("location"), "location",
                       "expected a results folder such as closed/<submitter>/results/<system>/"
                       "<benchmark>/<scenario>, without a leading './' or a trailing '/'");
    }
    if (find_replica(out, p.location) != nullptr) {
      throw InputError(r.at("location"), "location", "a second line for '" + p.location + "'");
    }
    p.replica_chips = r.count("replica_chips", 1, kMaxReplicaChips);
    p.where = SourceLocation{path, number, 1};
    out.push_back(std::move(p));
  };
  for_each_data_row(text, path, {"location", "replica_chips"}, read_row);
  return out;
}

std::vector<PublishedReplica> shipped_mlperf_replicas(const config::DataPaths& paths) {
  const std::optional<std::string> file =
      shipped_data_file(paths, "workloads/measurements/mlperf-replicas.csv");
  if (!file) return {};
  return read_mlperf_replicas(*file);
}

std::optional<std::string> notes_location(const std::string& notes) {
  // "location ./closed/.../Offline/performance/run_1;" (v6.0) or "location closed/.../Server;"
  // (v5.1): the folder up to the scenario.
  static const std::regex pattern(R"(\blocation (?:\./)?([^ ;]+))");
  std::smatch m;
  if (!std::regex_search(notes, m, pattern)) return std::nullopt;
  std::string folder = m[1].str();
  const size_t tail = folder.find("/performance/");
  if (tail != std::string::npos) folder.erase(tail);
  while (!folder.empty() && folder.back() == '/') folder.pop_back();
  if (folder.empty()) return std::nullopt;
  return folder;
}

const PublishedReplica* find_replica(const std::vector<PublishedReplica>& replicas,
                                     const std::string& location) {
  for (const PublishedReplica& p : replicas) {
    if (p.location == location) return &p;
  }
  return nullptr;
}

}  // namespace scoville::validation
