// `scoville trace`: map one iteration of a model onto a pool of chips and print what each chip
// role does, per layer; optionally write one trace file per chip role.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/cli/arg_reader.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/cli/system_run.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/mapping_loader.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/output/iteration_summary.hpp"
#include "sim/output/iteration_trace_files.hpp"
#include "sim/output/output_paths.hpp"
#include "sim/study/study_config.hpp"
#include "workloads/mapping/map_iteration.hpp"
#include "workloads/mapping/memory_footprint.hpp"
#include "workloads/model_loader.hpp"

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

using workloads::MemoryFootprint;

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
    if (engine::names_system(chip, paths))
      chip = config::require_chip(config::load_system(chip, paths));
    return config::load_chip(chip, paths).hbm.capacity;
  }
  return std::nullopt;
}

// The chip of --system/--chip, for the Chakra export's durations; none without one.
std::optional<models::ChipParams> chip_params(const TraceOptions& r,
                                              const config::DataPaths& paths) {
  if (!r.system || r.format != "chakra" || !r.output_dir) return std::nullopt;
  std::string chip = *r.system;
  if (engine::names_system(chip, paths))
    chip = config::require_chip(config::load_system(chip, paths));
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
      r.output_dir
          ? output::write_iteration_traces(*r.output_dir, r.format, mapped, chip_params(r, paths))
          : std::vector<std::string>();
  if (r.json) {
    output::render_iteration_json(out, model, mapped, memory, hbm.has_value());
    return 0;
  }
  output::render_iteration_text(out, model, mapped, memory, hbm.has_value());
  for (const std::string& path : written) out << "wrote " << path << "\n";
  return 0;
}

}  // namespace scoville::cli
