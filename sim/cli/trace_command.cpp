// `scoville trace`: map one iteration of a model onto a pool of chips and print what each chip
// role does, per layer; optionally write one trace file per chip role.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/unit_parser.hpp"
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

OptionSet trace_options() {
  OptionSet s("trace");
  s.synopsis("[options]", "map one iteration onto chips; per-layer work per chip")
      .text("--model", "NAME|FILE", "model (names resolve to workloads/models/NAME.yaml)")
      .text("--phase", "prefill|decode",
            "prefill: --context prompt tokens per sequence; decode: one new token attending to "
            "--context tokens")
      .count("--batch", "N", "sequences in the iteration (whole pool)")
      .count("--context", "N", "tokens per sequence (see --phase)")
      .count("--tp", "N",
             "tensor-parallel degree (default 1); chips = dp x pp x tp, ep and attn-dp divide tp "
             "(docs/mapping.md)")
      .count("--ep", "N", "expert-parallel degree (default 1)")
      .count("--pp", "N", "pipeline-parallel degree (default 1)")
      .count("--dp", "N", "data-parallel degree (default 1)")
      .count("--attn-dp", "N", "attention data-parallel degree (default 1)")
      .flag("--sequence-parallel", "reduce-scatter + all-gather instead of all-reduce")
      .count("--chips", "N", "chips in the pool (checked against the degrees)")
      .text("--mapping", "FILE",
            "mapping YAML (one entry per pool, docs/mapping.md): the pool named after --phase, "
            "or its only pool")
      .text("--system", "NAME|FILE",
            "system (arch/systems) or chip (arch/chips) whose chip's HBM capacity the memory "
            "check uses")
      .text("--chip", "NAME|FILE", "the chip instead of --system")
      .text("--hbm", "SIZE", "HBM per chip, e.g. \"141 GB\" (overrides --system)")
      .text("--sampler", "single-pass|full-sort",
            "how each token is drawn (default single-pass): full-sort sorts every sequence's "
            "vocabulary for top-p, as vLLM before v0.21 does (docs/software.md, \"Sampling\")")
      .flag("--json", "print the summary as JSON")
      .text("-o,--output", "DIR",
            "write the trace files into DIR: native, one per chip role (ROLE.trace.yaml); chakra, "
            "one per rank (PHASE.RANK.et)")
      .text("--format", "native|chakra",
            "trace file format for -o (default native); chakra also writes "
            "PHASE.comm_groups.json (ASTRA-sim's communicators) and, with --system/--chip, every "
            "compute node's chip-model time as duration_micros (docs/traces-chakra.md)");
  return s;
}

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
  workloads::Sampler sampler = workloads::Sampler::kSinglePass;
  bool json = false;
  std::optional<std::string> output_dir;
  std::string format = "native";
};

TraceOptions parse_trace(const std::vector<std::string>& args) {
  const ParsedOptions p = trace_options().parse(args);
  TraceOptions r;
  r.model = p.text("--model");
  r.phase = p.text("--phase");
  if (r.phase && *r.phase != "prefill" && *r.phase != "decode") {
    throw UsageError("--phase expects prefill or decode, got '" + *r.phase + "'");
  }
  r.batch = p.count("--batch");
  r.context = p.count("--context");
  if (auto v = p.count("--tp")) r.degrees.tp = *v;
  if (auto v = p.count("--ep")) r.degrees.ep = *v;
  if (auto v = p.count("--pp")) r.degrees.pp = *v;
  if (auto v = p.count("--dp")) r.degrees.dp = *v;
  if (auto v = p.count("--attn-dp")) r.degrees.attn_dp = *v;
  r.degrees.sequence_parallel = p.flag("--sequence-parallel");
  for (const char* flag : {"--tp", "--ep", "--pp", "--dp", "--attn-dp", "--sequence-parallel"}) {
    if (p.given(flag)) r.degrees_given = true;
  }
  r.chips = p.count("--chips");
  r.mapping_file = p.text("--mapping");
  if (p.given("--system") && p.given("--chip")) {
    throw UsageError("--system and --chip both name the chip: give one of them");
  }
  r.system = p.given("--chip") ? p.text("--chip") : p.text("--system");
  r.hbm = p.text("--hbm");
  const std::string sampler = p.text_or("--sampler", "single-pass");
  if (sampler != "single-pass" && sampler != "full-sort") {
    throw UsageError("--sampler expects single-pass or full-sort, got '" + sampler + "'");
  }
  if (sampler == "full-sort") r.sampler = workloads::Sampler::kFullSort;
  r.json = p.flag("--json");
  r.output_dir = p.text("--output");
  r.format = p.text_or("--format", "native");
  if (r.format != "native" && r.format != "chakra") {
    throw UsageError("--format expects native or chakra, got '" + r.format + "'");
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
      workloads::load_model(paths.resolve(*r.model, "workloads/models")).with_sampler(r.sampler);
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
