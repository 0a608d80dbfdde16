#include "sim/engine/trace_runner.hpp"

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include <systemc>

#include "models/chip/chip_module.hpp"
#include "models/chip/run_simulation.hpp"
#include "sim/base/error.hpp"
#include "sim/base/json_text.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/engine/lowering.hpp"
#include "sim/stats/op_accounting.hpp"
#include "workloads/trace/chakra_reader.hpp"
#include "workloads/trace/native_trace.hpp"

namespace scoville::engine {

namespace {

// A trace file is read whole; past this size it is refused before reading (a one-iteration trace
// of the largest model in the library is a few MB) [ASSUMPTION: generous bound, docs/errors.md].
constexpr std::uintmax_t kMaxTraceFileBytes = std::uintmax_t{1} << 30;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The first 4 KiB name the native format (header keys come first, after comments).
bool looks_native(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return head.find(workloads::kNativeTraceFormat) != std::string::npos;
}

}  // namespace

LoadedTrace load_trace_file(const std::string& path) {
  const SourceLocation file{path, 0, 0};
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw InputError(file, "--trace-file",
                     std::filesystem::exists(path, ec)
                         ? "not a regular file: give a native (.yaml) or Chakra (.et) trace file"
                         : "file not found: give a native (.yaml) or Chakra (.et) trace file");
  }
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxTraceFileBytes) {
    throw InputError(file, "--trace-file",
                     "the file has " + std::to_string(size) + " bytes, more than the " +
                         std::to_string(kMaxTraceFileBytes) +
                         " a single-chip trace run reads; split the trace or run fewer layers");
  }
  LoadedTrace out;
  const bool chakra = ends_with(path, ".et") || (!ends_with(path, ".yaml") &&
                                                 !ends_with(path, ".yml") && !looks_native(path));
  if (chakra) {
    workloads::ChakraTrace t = workloads::read_chakra_trace(path);
    out.format = "chakra";
    out.trace = std::move(t.trace);
    out.warnings = std::move(t.warnings);
  } else {
    out.format = "native";
    out.trace = workloads::read_native_trace(path);
  }
  return out;
}

TraceRunResult run_trace_file(const std::string& chip, const std::string& trace_file,
                              const config::DataPaths& paths) {
  TraceRunResult r;
  r.chip_file = paths.resolve(chip, "arch/chips");
  const models::ChipParams params = config::load_chip(chip, paths);
  r.chip = params.name;
  r.trace_file = trace_file;
  r.loaded = load_trace_file(trace_file);

  std::vector<const workloads::TraceNode*> compute;
  for (const workloads::TraceNode& node : r.loaded.trace.nodes) {
    if (node.kind == workloads::TraceNodeKind::kCompute) {
      compute.push_back(&node);
    } else {
      ++r.collectives_not_simulated;
      r.collective_bytes_not_simulated += node.collective.bytes;
    }
  }
  if (r.collectives_not_simulated > 0) {
    r.loaded.warnings.push_back(std::to_string(r.collectives_not_simulated) +
                                " collective node(s) (" +
                                format_si(r.collective_bytes_not_simulated.si(), "B") +
                                ") not simulated: a single-chip run has no network; their time and "
                                "energy are not included");
  }
  if (compute.empty()) {
    throw InputError(SourceLocation{trace_file, 0, 0}, "nodes",
                     "the trace has no compute or memory node to run on a chip; give the trace "
                     "of a role that computes (see scoville trace -o DIR), or run all ranks of a "
                     "collective-only trace on a network with --system NAME --trace-file "
                     "PREFIX");
  }

  std::vector<models::WorkDescriptor> program;
  program.reserve(compute.size());
  for (const workloads::TraceNode* node : compute) program.push_back(lower(node->op, params));
  models::ChipModule module("chip0", params);
  module.set_program(program);
  models::run_simulation();
  if (!module.finished()) {
    throw ScovilleError("simulation of chip '" + params.name +
                        "' stopped before the trace's ops finished");
  }
  const std::vector<models::OpRecord>& records = module.records();
  const Duration start = records.front().start;
  for (size_t i = 0; i < compute.size(); ++i) {
    stats::OpResult row = stats::account_op(records[i], program[i], params, 0, compute[i]->layer,
                                            workloads::to_string(compute[i]->op.kind), start);
    row.name = compute[i]->name;
    r.flops += row.flops;
    r.hbm_bytes += row.hbm_bytes;
    r.energy += row.energy;
    r.ops.push_back(std::move(row));
  }
  r.time = records.back().end - start;
  return r;
}

std::string render_trace_run_text(const TraceRunResult& r) {
  const workloads::ChipTrace& t = r.loaded.trace;
  std::ostringstream o;
  o << "trace " << r.trace_file << " (" << r.loaded.format << "): model " << t.model << ", role "
    << t.role << ", rank " << t.rank << " of " << t.world_size << "\n";
  o << "chip " << r.chip << ": " << r.ops.size() << " op(s) simulated, "
    << r.collectives_not_simulated << " collective(s) not simulated\n";
  o << "  time     " << format_si(r.time.si(), "s") << "\n";
  o << "  energy   " << format_si(r.energy.total().si(), "J") << "\n";
  o << "  FLOPs    " << format_si(r.flops.si(), "FLOP") << "\n";
  o << "  HBM      " << format_si(r.hbm_bytes.si(), "B") << "\n";
  if (r.time.si() > 0) {
    o << "  average power " << format_si(r.energy.total().si() / r.time.si(), "W") << "\n";
  }
  return o.str();
}

std::string render_trace_run_json(const TraceRunResult& r) {
  using output::json_escape;
  using output::json_number;
  const workloads::ChipTrace& t = r.loaded.trace;
  std::ostringstream o;
  o << "{\n  \"chip\": \"" << json_escape(r.chip) << "\",\n  \"trace_file\": \""
    << json_escape(r.trace_file) << "\",\n  \"format\": \"" << r.loaded.format
    << "\",\n  \"model\": \"" << json_escape(t.model) << "\",\n  \"role\": \""
    << json_escape(t.role) << "\",\n  \"rank\": " << t.rank
    << ",\n  \"ops_simulated\": " << r.ops.size()
    << ",\n  \"collectives_not_simulated\": " << r.collectives_not_simulated
    << ",\n  \"collective_bytes_not_simulated\": "
    << json_number(r.collective_bytes_not_simulated.si())
    << ",\n  \"time_s\": " << json_number(r.time.si())
    << ",\n  \"energy_j\": " << json_number(r.energy.total().si())
    << ",\n  \"flops\": " << json_number(r.flops.si())
    << ",\n  \"hbm_bytes\": " << json_number(r.hbm_bytes.si()) << ",\n  \"ops\": [";
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const stats::OpResult& op = r.ops[i];
    o << (i == 0 ? "\n" : ",\n") << "    {\"name\": \"" << json_escape(op.name)
      << "\", \"layer\": " << op.layer << ", \"kind\": \"" << op.kind
      << "\", \"start_s\": " << json_number(op.start.si())
      << ", \"duration_s\": " << json_number(op.duration.si())
      << ", \"energy_j\": " << json_number(op.energy.total().si()) << "}";
  }
  o << "\n  ],\n  \"warnings\": [";
  for (size_t i = 0; i < r.loaded.warnings.size(); ++i) {
    o << (i == 0 ? "" : ", ") << "\"" << json_escape(r.loaded.warnings[i]) << "\"";
  }
  o << "]\n}\n";
  return o.str();
}

}  // namespace scoville::engine
