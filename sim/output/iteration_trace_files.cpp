#include "sim/output/iteration_trace_files.hpp"

#include <filesystem>
#include <map>

#include "sim/base/error.hpp"
#include "sim/engine/trace_op_times.hpp"
#include "sim/output/atomic_file.hpp"
#include "workloads/trace/chakra_writer.hpp"
#include "workloads/trace/communicator_groups.hpp"
#include "workloads/trace/native_trace.hpp"

namespace scoville::output {

namespace {

using workloads::ChipRole;

// Each rank of a role runs the role's trace; only its rank and its point-to-point peers differ
// (a pipeline peer is the same position one stage away, so it moves with the rank).
std::vector<workloads::ChipTrace> per_rank_traces(const ChipRole& role) {
  std::vector<workloads::ChipTrace> out;
  for (const int64_t rank : role.ranks) {
    workloads::ChipTrace t = role.trace;
    const int64_t shift = rank - role.trace.rank;
    t.rank = rank;
    t.multiplicity = 1;
    for (workloads::TraceNode& node : t.nodes) {
      if (node.kind == workloads::TraceNodeKind::kCollective && node.collective.peer >= 0) {
        node.collective.peer += shift;
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

// The group names of a role's collectives (send/recv pairs need no communicator).
void collect_groups(const workloads::ChipTrace& t, std::vector<std::string>* groups) {
  for (const workloads::TraceNode& node : t.nodes) {
    if (node.kind == workloads::TraceNodeKind::kCollective && node.collective.peer < 0) {
      groups->push_back(node.collective.group);
    }
  }
}

// Chakra: one file per rank ("<phase>.<rank>.et", the set ASTRA-sim opens with
// --workload-configuration=DIR/<phase>), each with the pg_name of its group instances, and the
// communicator JSON ("<phase>.comm_groups.json", for --comm-group-configuration). With a chip,
// every compute node carries its time on the chip model (one simulation per role).
std::vector<std::string> write_chakra(const std::string& dir,
                                      const workloads::MappedIteration& mapped,
                                      const std::optional<models::ChipParams>& chip) {
  const std::string prefix =
      (std::filesystem::path(dir) / workloads::to_string(mapped.shape.phase)).string();
  std::vector<std::string> groups;
  std::vector<const workloads::ChipTrace*> roles;
  for (const ChipRole& role : mapped.roles) {
    collect_groups(role.trace, &groups);
    roles.push_back(&role.trace);
  }
  const workloads::Communicators comms =
      workloads::assign_communicators(mapped.mapping.degrees, mapped.mapping.chips, groups);
  std::vector<std::map<uint64_t, Duration>> durations(roles.size());
  if (chip) durations = engine::chip_compute_durations(roles, *chip);
  std::vector<std::string> written;
  for (size_t i = 0; i < mapped.roles.size(); ++i) {
    for (const workloads::ChipTrace& t : per_rank_traces(mapped.roles[i])) {
      workloads::ChakraWriteOptions options;
      const auto ids = comms.ids.find(t.rank);
      if (ids != comms.ids.end()) options.communicator_ids = ids->second;
      options.compute_durations = durations[i];
      written.push_back(workloads::chakra_trace_path(prefix, t.rank));
      workloads::write_chakra_trace(t, written.back(), options);
    }
  }
  written.push_back(prefix + ".comm_groups.json");
  write_text_atomically(written.back(), workloads::render_communicators_json(comms));
  return written;
}

}  // namespace

// Returns the files written: native, one per chip role ("<role>.trace.yaml"); Chakra, see
// write_chakra.
std::vector<std::string> write_iteration_traces(const std::string& dir, const std::string& format,
                                                const workloads::MappedIteration& mapped,
                                                const std::optional<models::ChipParams>& chip) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw OutputError("cannot create directory " + dir + ": " + ec.message());
  if (format == "chakra") return write_chakra(dir, mapped, chip);
  std::vector<std::string> written;
  for (const ChipRole& role : mapped.roles) {
    const std::string path = (std::filesystem::path(dir) / (role.trace.role + ".trace.yaml"));
    write_text_atomically(path, workloads::render_native_trace(role.trace));
    written.push_back(path);
  }
  return written;
}

}  // namespace scoville::output
