// `scoville trace`: map one iteration of a model onto a pool of chips and print what each chip
// role does, per layer; optionally write one trace file per chip role.
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/json_text.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/cli/arg_reader.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/cli/system_run.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/mapping_loader.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/engine/trace_op_times.hpp"
#include "sim/output/atomic_file.hpp"
#include "sim/output/output_paths.hpp"
#include "sim/study/study_config.hpp"
#include "workloads/mapping/map_iteration.hpp"
#include "workloads/mapping/memory_footprint.hpp"
#include "workloads/mapping/trace_summary.hpp"
#include "workloads/model_loader.hpp"
#include "workloads/trace/chakra_writer.hpp"
#include "workloads/trace/communicator_groups.hpp"
#include "workloads/trace/native_trace.hpp"

namespace scoville::cli {

extern const char kTraceUsage[] =
    R"(  scoville trace [options]          map one iteration onto chips; per-layer work per chip
      --model NAME|FILE             model (names resolve to workloads/models/NAME.yaml)
      --phase prefill|decode        prefill: --context prompt tokens per sequence;
                                    decode: one new token attending to --context tokens
      --batch N                     sequences in the iteration (whole pool)
      --context N                   tokens per sequence (see --phase)
      --tp N --ep N --pp N --dp N --attn-dp N
                                    parallel degrees (default 1); chips = dp x pp x tp,
                                    ep and attn-dp divide tp (docs/mapping.md)
      --sequence-parallel           reduce-scatter + all-gather instead of all-reduce
      --chips N                     chips in the pool (checked against the degrees)
      --mapping FILE                mapping YAML (one entry per pool, docs/mapping.md): the
                                    pool named after --phase, or its only pool
      --system NAME|FILE            system (arch/systems) or chip (arch/chips) whose chip's HBM
                                    capacity the memory check uses
      --hbm SIZE                    HBM per chip, e.g. "141 GB" (overrides --system)
      --json                        print the summary as JSON
      -o, --output DIR              write the trace files into DIR: native, one per chip role
                                    (ROLE.trace.yaml); chakra, one per rank (PHASE.RANK.et)
      --format native|chakra        trace file format for -o (default native); chakra also
                                    writes PHASE.comm_groups.json (ASTRA-sim's communicators)
                                    and, with --system/--chip, every compute node's chip-model
                                    time as duration_micros (docs/traces-chakra.md)
)";

namespace {

using workloads::ChipRole;
using workloads::MemoryFootprint;
using workloads::WorkTotals;

struct TraceOptions {
  std::optional<std::string> model;
  std::optional<std::string> phase;
  std::optional<long long> batch;
  std::optional<long long> context;
  workloads::ParallelDegrees degrees;
  std::optional<long long> chips;
  bool degrees_given = false;
  std::optional<std::string> mapping_file;
  std::optional<std::string> system;
  std::optional<std::string> hbm;
  bool json = false;
  std::optional<std::string> output_dir;
  std::string format = "native";
};

TraceOptions parse_trace(const std::vector<std::string>& args) {
  TraceOptions r;
  ArgReader a("scoville trace", args);
  while (a.next()) {
    if (a.is("--model")) {
      r.model = a.value();
    } else if (a.is("--phase")) {
      r.phase = a.value();
      if (*r.phase != "prefill" && *r.phase != "decode") {
        throw UsageError("--phase expects prefill or decode, got '" + *r.phase + "'");
      }
    } else if (a.is("--batch")) {
      r.batch = a.count();
    } else if (a.is("--context")) {
      r.context = a.count();
    } else if (a.is("--tp")) {
      r.degrees.tp = a.count();
      r.degrees_given = true;
    } else if (a.is("--ep")) {
      r.degrees.ep = a.count();
      r.degrees_given = true;
    } else if (a.is("--pp")) {
      r.degrees.pp = a.count();
      r.degrees_given = true;
    } else if (a.is("--dp")) {
      r.degrees.dp = a.count();
      r.degrees_given = true;
    } else if (a.is("--attn-dp")) {
      r.degrees.attn_dp = a.count();
      r.degrees_given = true;
    } else if (a.is("--sequence-parallel")) {
      r.degrees.sequence_parallel = true;
      r.degrees_given = true;
    } else if (a.is("--chips")) {
      r.chips = a.count();
    } else if (a.is("--mapping")) {
      r.mapping_file = a.value();
    } else if (a.is("--system") || a.is("--chip")) {
      r.system = a.value();
    } else if (a.is("--hbm")) {
      r.hbm = a.value();
    } else if (a.is("--json")) {
      r.json = true;
    } else if (a.is("-o") || a.is("--output")) {
      r.output_dir = a.value();
    } else if (a.is("--format")) {
      r.format = a.value();
      if (r.format != "native" && r.format != "chakra") {
        throw UsageError("--format expects native or chakra, got '" + r.format + "'");
      }
    } else {
      a.unknown();
    }
  }
  if (!r.model) throw UsageError("--model is required");
  if (!r.phase) throw UsageError("--phase is required");
  if (!r.batch) throw UsageError("--batch is required");
  if (!r.context) throw UsageError("--context is required");
  if (r.mapping_file && (r.degrees_given || r.chips)) {
    throw UsageError(
        "--mapping excludes --tp, --ep, --pp, --dp, --attn-dp, --sequence-parallel and --chips");
  }
  return r;
}

const SourceLocation kCli{"<command line>", 0, 0};

std::optional<Bytes> hbm_capacity(const TraceOptions& r, const config::DataPaths& paths) {
  if (r.hbm) {
    try {
      return parse<Bytes>(*r.hbm);
    } catch (const UnitParseError& e) {
      throw InputError(kCli, "--hbm", e.what());
    }
  }
  if (r.system) {
    // A system file (arch/systems) stands for its chip; anything else names a chip.
    std::string chip = *r.system;
    if (names_system(chip, paths)) chip = config::require_chip(config::load_system(chip, paths));
    return config::load_chip(chip, paths).hbm.capacity;
  }
  return std::nullopt;
}

std::string si(double v, const char* unit) { return format_si(v, unit, 4); }

std::string layer_name(int layer) { return layer < 0 ? "other" : std::to_string(layer); }

std::string json_totals(const WorkTotals& t) {
  return "{\"flops\": " + output::json_number(t.flops.si()) +
         ", \"weight_bytes\": " + output::json_number(t.weight_bytes.si()) +
         ", \"kv_bytes\": " + output::json_number(t.kv_bytes.si()) +
         ", \"collective_bytes\": " + output::json_number(t.collective_bytes.si()) + "}";
}

void text_row(std::ostream& out, const std::string& label, const WorkTotals& t) {
  out << "  " << std::left << std::setw(8) << label << std::right << std::setw(14)
      << si(t.flops.si(), "FLOP") << std::setw(14) << si(t.weight_bytes.si(), "B") << std::setw(14)
      << si(t.kv_bytes.si(), "B") << std::setw(14) << si(t.collective_bytes.si(), "B") << "\n";
}

void render_text(std::ostream& out, const workloads::ModelConfig& model,
                 const workloads::MappedIteration& mapped,
                 const std::vector<MemoryFootprint>& memory, bool have_hbm) {
  const workloads::ParallelDegrees& d = mapped.mapping.degrees;
  out << model.name() << ", " << to_string(mapped.shape.phase) << ", batch " << mapped.shape.batch
      << ", context " << mapped.shape.context << " on " << mapped.mapping.chips << " chips (tp "
      << d.tp << ", ep " << d.ep << ", pp " << d.pp << ", dp " << d.dp << ", attn_dp " << d.attn_dp
      << (d.sequence_parallel ? ", sequence parallel" : "") << ")\n";
  WorkTotals pool;
  for (size_t i = 0; i < mapped.roles.size(); ++i) {
    const workloads::ChipTrace& t = mapped.roles[i].trace;
    out << "\nrole " << t.role << ": " << t.multiplicity << " chip(s), first rank " << t.rank
        << "; per chip:\n"
        << "  layer             FLOPs   weights read      KV bytes   collectives\n";
    for (const auto& [layer, totals] : workloads::per_layer_totals(t)) {
      text_row(out, layer_name(layer), totals);
    }
    const WorkTotals chip = workloads::totals(t);
    text_row(out, "total", chip);
    pool += chip * static_cast<double>(t.multiplicity);
    const MemoryFootprint& m = memory[i];
    out << "  memory per chip: weights " << si(m.weights.si(), "B") << ", KV cache "
        << si(m.kv_cache.si(), "B") << ", activations " << si(m.activations.si(), "B");
    if (have_hbm) {
      out << "; of " << si(m.hbm.si(), "B") << " HBM, " << si(m.kv_capacity.si(), "B")
          << " left for KV (" << m.kv_capacity_tokens << " tokens of context)";
    }
    out << "\n";
  }
  out << "\nwhole model, all chips:\n";
  text_row(out, "total", pool);
}

void render_json(std::ostream& out, const workloads::ModelConfig& model,
                 const workloads::MappedIteration& mapped,
                 const std::vector<MemoryFootprint>& memory, bool have_hbm) {
  const workloads::ParallelDegrees& d = mapped.mapping.degrees;
  out << "{\n  \"model\": \"" << output::json_escape(model.name()) << "\",\n  \"phase\": \""
      << to_string(mapped.shape.phase) << "\",\n  \"batch\": " << mapped.shape.batch
      << ",\n  \"context\": " << mapped.shape.context << ",\n  \"chips\": " << mapped.mapping.chips
      << ",\n  \"degrees\": {\"tp\": " << d.tp << ", \"ep\": " << d.ep << ", \"pp\": " << d.pp
      << ", \"dp\": " << d.dp << ", \"attn_dp\": " << d.attn_dp
      << ", \"sequence_parallel\": " << (d.sequence_parallel ? "true" : "false")
      << "},\n  \"roles\": [";
  WorkTotals pool;
  for (size_t i = 0; i < mapped.roles.size(); ++i) {
    const workloads::ChipTrace& t = mapped.roles[i].trace;
    out << (i ? "," : "") << "\n    {\"role\": \"" << output::json_escape(t.role)
        << "\", \"multiplicity\": " << t.multiplicity << ", \"first_rank\": " << t.rank
        << ",\n     \"layers\": [";
    bool first = true;
    for (const auto& [layer, totals] : workloads::per_layer_totals(t)) {
      out << (first ? "" : ",") << "\n       {\"layer\": \"" << layer_name(layer)
          << "\", \"per_chip\": " << json_totals(totals) << "}";
      first = false;
    }
    const WorkTotals chip = workloads::totals(t);
    pool += chip * static_cast<double>(t.multiplicity);
    const MemoryFootprint& m = memory[i];
    out << "],\n     \"per_chip\": " << json_totals(chip)
        << ",\n     \"memory_per_chip\": {\"weights_bytes\": "
        << output::json_number(m.weights.si())
        << ", \"kv_cache_bytes\": " << output::json_number(m.kv_cache.si())
        << ", \"activation_bytes\": " << output::json_number(m.activations.si());
    if (have_hbm) {
      out << ", \"hbm_bytes\": " << output::json_number(m.hbm.si())
          << ", \"kv_capacity_bytes\": " << output::json_number(m.kv_capacity.si())
          << ", \"kv_capacity_tokens\": " << m.kv_capacity_tokens;
    }
    out << "}}";
  }
  out << "\n  ],\n  \"whole_model\": " << json_totals(pool) << "\n}\n";
}

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
  output::write_text_atomically(written.back(), workloads::render_communicators_json(comms));
  return written;
}

// Returns the files written: native, one per chip role ("<role>.trace.yaml"); Chakra, see
// write_chakra.
std::vector<std::string> write_traces(const std::string& dir, const std::string& format,
                                      const workloads::MappedIteration& mapped,
                                      const std::optional<models::ChipParams>& chip) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw OutputError("cannot create directory " + dir + ": " + ec.message());
  if (format == "chakra") return write_chakra(dir, mapped, chip);
  std::vector<std::string> written;
  for (const ChipRole& role : mapped.roles) {
    const std::string path = (std::filesystem::path(dir) / (role.trace.role + ".trace.yaml"));
    output::write_text_atomically(path, workloads::render_native_trace(role.trace));
    written.push_back(path);
  }
  return written;
}

// The chip of --system/--chip, for the Chakra export's durations; none without one.
std::optional<models::ChipParams> chip_params(const TraceOptions& r,
                                              const config::DataPaths& paths) {
  if (!r.system || r.format != "chakra" || !r.output_dir) return std::nullopt;
  std::string chip = *r.system;
  if (names_system(chip, paths)) chip = config::require_chip(config::load_system(chip, paths));
  return config::load_chip(chip, paths);
}

workloads::PoolMapping pool_mapping(const TraceOptions& r) {
  if (r.mapping_file) {
    const workloads::MappingConfig config = config::load_mapping(*r.mapping_file);
    if (config.pools.size() == 1) return config.pools.front();
    return config.pool(*r.phase);
  }
  workloads::PoolMapping mapping;
  mapping.pool = *r.phase;
  mapping.degrees = r.degrees;
  mapping.chips = r.chips ? *r.chips : r.degrees.dp * r.degrees.pp * r.degrees.tp;
  mapping.where = kCli;
  return mapping;
}

}  // namespace

int trace_command(const Invocation& invocation, std::ostream& out) {
  const TraceOptions r = parse_trace(invocation.args);
  output::RunFiles files;
  files.named_input("--model", r.model.value_or(""), "workloads/models");
  files.input("--mapping", r.mapping_file.value_or(""));
  files.output("-o", r.output_dir.value_or(""));
  files.check();
  const config::DataPaths paths = config::DataPaths::from_environment();
  const workloads::ModelConfig model =
      workloads::load_model(paths.resolve(*r.model, "workloads/models"));
  const std::optional<Bytes> hbm = hbm_capacity(r, paths);

  workloads::IterationShape shape;
  shape.phase = *r.phase == "prefill" ? workloads::Phase::kPrefill : workloads::Phase::kDecode;
  shape.batch = *r.batch;
  shape.context = *r.context;
  shape.new_tokens = shape.phase == workloads::Phase::kPrefill ? shape.context : 1;
  if (shape.batch < 1 || shape.batch > study::kMaxBatch) {
    throw InputError(kCli, "--batch",
                     "expected 1 to " + std::to_string(study::kMaxBatch) + " sequences, got " +
                         std::to_string(shape.batch));
  }
  if (shape.context < 1 || shape.context > model.max_context()) {
    throw InputError(kCli, "--context",
                     "expected 1 to " + std::to_string(model.max_context()) + " (the " +
                         "max_context of " + model.name() + "), got " +
                         std::to_string(shape.context));
  }

  const workloads::PoolMapping mapping = pool_mapping(r);
  const workloads::MappedIteration mapped = workloads::map_iteration(model, shape, mapping);
  const std::vector<MemoryFootprint> memory =
      workloads::memory_footprint(model, mapped, hbm.value_or(Bytes()));
  if (hbm) workloads::check_fit(mapped, memory);

  // Files first: a failed write leaves no summary that claims them.
  const std::vector<std::string> written =
      r.output_dir ? write_traces(*r.output_dir, r.format, mapped, chip_params(r, paths))
                   : std::vector<std::string>();
  if (r.json) {
    render_json(out, model, mapped, memory, hbm.has_value());
    return 0;
  }
  render_text(out, model, mapped, memory, hbm.has_value());
  for (const std::string& path : written) out << "wrote " << path << "\n";
  return 0;
}

}  // namespace scoville::cli
