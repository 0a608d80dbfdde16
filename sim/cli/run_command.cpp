// `scoville run`: simulate a study and print per-chip, per-phase results.
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/atomic_file.hpp"
#include "sim/base/error.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/cli/op_simulation_progress.hpp"
#include "sim/cli/run_options.hpp"
#include "sim/cli/system_run.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/engine/multi_rank_run.hpp"
#include "sim/engine/study_runner.hpp"
#include "sim/engine/trace_runner.hpp"
#include "sim/output/chip_ops_progress.hpp"
#include "sim/output/output_paths.hpp"
#include "sim/output/perfetto_trace.hpp"
#include "sim/output/study_report.hpp"
#include "sim/output/system_trace.hpp"
#include "sim/output/terminal_style.hpp"
#include "workloads/precision_override.hpp"

namespace scoville::cli {

namespace {

// `run --system NAME --trace-file DIR|PREFIX`: a multi-rank Chakra trace on a system.
int run_multi_rank(const RunOptions& r, std::ostream& out) {
  if (r.study_file || r.model || r.batch || r.isl || r.osl || r.seed || r.precision ||
      r.power_cap || r.system_args.any_system_flag || r.h5_output || r.trace_output ||
      r.trace_window || !r.trace_chips.empty() || r.trace_max_events || !r.chips.empty()) {
    throw UsageError(
        "--system with --trace-file runs a multi-rank trace: it takes --comm-groups, --compute "
        "and --json only");
  }
  engine::MultiRankOptions options;
  options.system = *r.system;
  options.trace = *r.trace_file;
  options.comm_groups = r.comm_groups;
  if (r.compute) options.compute = engine::parse_compute_source(*r.compute);
  const engine::MultiRankResult result =
      engine::run_multi_rank_trace(options, config::DataPaths::from_environment());
  for (const std::string& w : result.warnings) std::cerr << "warning: " << w << "\n";
  out << (r.json ? engine::render_multi_rank_json(result) : engine::render_multi_rank_text(result));
  return 0;
}

// `run --chip NAME --trace-file FILE`: the hardware model consumes a trace file directly.
int run_trace_file(const RunOptions& r, std::ostream& out) {
  if (r.system && engine::names_system(*r.system, config::DataPaths::from_environment())) {
    return run_multi_rank(r, out);
  }
  if (r.comm_groups || r.compute) {
    throw UsageError("--comm-groups and --compute need --system NAME with --trace-file");
  }
  if (r.study_flags) {
    throw UsageError(
        "--trace-file runs a trace, not a study: it excludes --study, --model, --batch, --isl, "
        "--osl, --seed, --precision, --power-cap, --system and its flags, -o and --trace (and "
        "its --trace-window, --trace-chips, --trace-max-events)");
  }
  if (r.chips.size() != 1) throw UsageError("--trace-file needs exactly one --chip");
  const engine::TraceRunResult result =
      engine::run_trace_file(r.chips.front(), *r.trace_file, config::DataPaths::from_environment());
  for (const std::string& w : result.loaded.warnings) std::cerr << "warning: " << w << "\n";
  out << (r.json ? engine::render_trace_run_json(result) : engine::render_trace_run_text(result));
  return 0;
}

int64_t bounded_count(long long v, const char* flag, int64_t max) {
  if (v < 1 || v > max) {
    throw InputError(SourceLocation{"<command line>", 0, 0}, flag,
                     "expected 1 to " + std::to_string(max) + ", got " + std::to_string(v));
  }
  return v;
}

// The files the run reads and writes: an output may replace neither an input nor another output.
void check_run_files(const RunOptions& r, const study::StudyConfig* s) {
  output::RunFiles files;
  if (r.study_file) files.input("--study", *r.study_file);
  // A study file's own names count as inputs too (the flags override them).
  const char* chip_flag = r.chips.empty() ? "study.chips" : "--chip";
  for (const std::string& chip : s ? s->chips : r.chips) {
    files.named_input(chip_flag, chip, "arch/chips");
  }
  if (s || r.model) {
    files.named_input(r.model ? "--model" : "study.model", s ? s->model : *r.model,
                      "workloads/models");
  }
  if (r.system) files.named_input("--system", *r.system, "arch/systems");
  if (r.system_args.mapping_file) files.input("--mapping", *r.system_args.mapping_file);
  if (r.trace_file) files.input("--trace-file", *r.trace_file);
  files.output("-o", r.h5_output.value_or(""));
  files.output("--trace", r.trace_output.value_or(""));
  files.check();
}

study::StudyConfig study_from(const RunOptions& r) {
  study::StudyConfig s =
      r.study_file ? study::parse_study_file(*r.study_file) : study::default_study();
  const SourceLocation cli{"<command line>", 0, 0};
  if (!r.chips.empty()) s.chips = r.chips;
  if (r.model) s.model = *r.model;
  if (r.batch) s.batch = bounded_count(*r.batch, "--batch", study::kMaxBatch);
  if (r.isl) s.isl = bounded_count(*r.isl, "--isl", study::kMaxSequenceTokens);
  if (r.osl) s.osl = bounded_count(*r.osl, "--osl", study::kMaxSequenceTokens);
  if (r.seed) s.seed = static_cast<uint64_t>(*r.seed);
  if (r.precision) {
    s.precision =
        s.precision.merged_with(workloads::parse_precision_override(*r.precision, "--precision"));
  }
  if (r.power_cap) {
    try {
      s.power_cap = Power(parse_quantity(*r.power_cap, Dimension::kPower));
    } catch (const UnitParseError& e) {
      throw InputError(cli, "--power-cap", e.what());
    }
    if (!(s.power_cap->si() > 0)) throw InputError(cli, "--power-cap", "expected a power > 0 W");
  }
  return s;
}

// The timeline a system run writes with --trace (none without it).
std::optional<SystemTraceRequest> system_trace_request(const RunOptions& r,
                                                       const Invocation& invocation) {
  if ((r.trace_window || r.trace_max_events || !r.trace_chips.empty()) && !r.trace_output) {
    throw UsageError("--trace-window, --trace-chips and --trace-max-events need --trace FILE.json");
  }
  if (!r.trace_output) return std::nullopt;
  SystemTraceRequest trace{
      *r.trace_output, {}, output::Provenance::current(invocation.argc, invocation.argv, 0)};
  if (r.trace_window) output::parse_trace_window(*r.trace_window, trace.options);
  if (r.trace_max_events) output::parse_trace_max_events(*r.trace_max_events, trace.options);
  trace.options.chips = r.trace_chips;  // chip numbers of the system (checked before the run)
  return trace;
}

// `run --system NAME` with flags: the flags become the system run's settings.
int run_system(const RunOptions& r, const Invocation& invocation, std::ostream& out) {
  if (r.study_file || !r.chips.empty() || r.precision || r.power_cap) {
    throw UsageError(
        "scoville run --system takes --model, --batch, --isl, --osl, --seed, -o, --json, the "
        "system flags and --trace (with --trace-window, --trace-chips, --trace-max-events); "
        "--study (a study file can hold system: itself), --chip, --precision and --power-cap "
        "are for single-chip studies");
  }
  const std::optional<SystemTraceRequest> trace = system_trace_request(r, invocation);
  SystemRunArgs args = r.system_args;
  args.system = r.system;
  args.model = r.model;
  args.json = r.json;
  if (r.batch) args.batch = bounded_count(*r.batch, "--batch", study::kMaxBatch);
  if (r.isl) args.isl = bounded_count(*r.isl, "--isl", study::kMaxSequenceTokens);
  if (r.osl) args.osl = bounded_count(*r.osl, "--osl", study::kMaxSequenceTokens);
  if (r.seed) args.seed = static_cast<uint64_t>(*r.seed);
  run_system_study(args, output::Provenance::current(invocation.argc, invocation.argv, args.seed),
                   r.h5_output, out, trace ? &*trace : nullptr, r.quiet);
  return 0;
}

// `run --study FILE` whose study has system: the same path as the flags above; --model,
// --batch, --isl, --osl and --seed override the file as they do for single-chip studies.
int run_system_from_study(const RunOptions& r, const study::StudyConfig& s,
                          const Invocation& invocation, std::ostream& out) {
  if (!r.chips.empty() || r.precision || r.power_cap) {
    throw UsageError(s.source +
                     " runs a system (system:); --chip, --precision and --power-cap are for "
                     "single-chip studies");
  }
  SystemRunArgs args = engine::system_args(s);
  args.json = r.json;
  const std::optional<SystemTraceRequest> trace = system_trace_request(r, invocation);
  run_system_study(args, output::Provenance::current(invocation.argc, invocation.argv, args.seed),
                   r.h5_output, out, trace ? &*trace : nullptr, r.quiet);
  return 0;
}

}  // namespace

int run_command(const Invocation& invocation, std::ostream& out) {
  RunOptions r = parse_run(invocation.args);
  check_run_files(r, nullptr);
  if (r.trace_file) return run_trace_file(r, out);
  if (r.comm_groups || r.compute) {
    throw UsageError("--comm-groups and --compute need --system NAME with --trace-file");
  }
  if (r.system) {
    if (engine::names_system(*r.system, config::DataPaths::from_environment())) {
      return run_system(r, invocation, out);
    }
    r.chips.push_back(*r.system);  // a chip name: the single-chip study, as before
  }
  if (r.system_args.any_system_flag) {
    throw UsageError(
        "--kv-placement, --tp, --ep, --pp, --dp, --attn-dp, --mapping, --fidelity, "
        "--overlap and --routing need --system NAME|FILE naming a system (arch/systems); a study "
        "file with system: holds them as keys instead");
  }
  const study::StudyConfig s = study_from(r);
  check_run_files(r, &s);
  if (s.system) return run_system_from_study(r, s, invocation, out);
  output::TraceOptions trace;
  if (r.trace_window) output::parse_trace_window(*r.trace_window, trace);
  trace.chips = r.trace_chips;
  if (r.trace_max_events) output::parse_trace_max_events(*r.trace_max_events, trace);
  if ((r.trace_window || !r.trace_chips.empty() || r.trace_max_events) && !r.trace_output) {
    throw UsageError("--trace-window, --trace-chips and --trace-max-events need --trace FILE.json");
  }
  // Only a timeline needs the units' activity; recording it does not change any result.
  std::optional<models::ActivityWindow> activity;
  if (r.trace_output) activity = output::activity_window(trace);
  // A cold op cache makes a run take minutes: count the ops simulated (on a terminal); the
  // detailed path (also taken for a timeline) counts the ops each chip's program has done.
  const bool detailed = r.detailed || activity;
  OpSimulationProgress progress("run", r.quiet || detailed);
  output::ChipOpsProgress chip_ops("run", s.chips, r.quiet || !detailed);
  engine::DetailedProgress on_ops;
  if (chip_ops.on()) {
    on_ops = [&chip_ops](size_t chip, int64_t done, int64_t total) {
      chip_ops.ops_done(chip, done, total);
    };
  }
  const engine::StudyResult result = engine::run_study(
      s, config::DataPaths::from_environment(), activity,
      r.detailed ? engine::StudyFidelity::kDetailed : engine::StudyFidelity::kOpTable,
      r.op_cache ? std::optional<std::string>(std::string()) : std::nullopt, on_ops);
  progress.finish();
  chip_ops.finish();
  const output::Provenance provenance =
      output::Provenance::current(invocation.argc, invocation.argv, s.seed);
  if (r.h5_output) output::write_h5_atomically(output::build_h5(result, provenance), *r.h5_output);
  if (r.trace_output) {
    write_text_atomically(*r.trace_output, output::render_perfetto_json(result, provenance, trace));
  }
  out << (r.json ? output::render_json(result, provenance)
                 : output::render_text(result, output::stdout_wants_colour()));
  return 0;
}

}  // namespace scoville::cli
