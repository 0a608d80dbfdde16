#include "sim/cli/run_options.hpp"

#include "sim/base/error.hpp"
#include "sim/cli/command_table.hpp"

namespace scoville::cli {

OptionSet run_options() {
  OptionSet s("run");
  s.synopsis("[options]", "simulate a study and print per-chip, per-phase results")
      .text("--study", "FILE", "study YAML (default: the embedded default study)")
      .list("--chip", "NAME|FILE",
            "chip(s) to simulate, comma-separated (names resolve to arch/chips/NAME.yaml)", true)
      .text("--system", "NAME|FILE",
            "a multi-chip system (arch/systems/NAME.yaml): simulates the batch on it and reports "
            "per-phase time and energy with the breakdown per component (docs/systems.md); a chip "
            "name here still means --chip");
  declare_system_flags(s, "with --system: ");
  s.text("--model", "NAME|FILE", "model (names resolve to workloads/models/NAME.yaml)")
      .count("--batch", "N", "sequences per iteration")
      .count("--isl", "N", "input (prompt) tokens per sequence")
      .count("--osl", "N", "output tokens per sequence")
      .count("--seed", "N", "run seed (recorded in outputs)")
      .text("--precision", "CLASS=FMT,...",
            "number formats per tensor class over the model's, e.g. weights=fp8,kv_cache=fp8 "
            "(classes: weights, experts, embeddings, activations, kv_cache, mlp, mlp_activations, "
            "residual; "
            "formats: bf16, fp8, mxfp4, nvfp4, int4 (weight-only))")
      .text("--power-cap", "POWER",
            "cap every chip's power, e.g. '500 W' or 500W (needs the chip's power_management "
            "section; docs/power.md)")
      .flag("--detailed",
            "run each chip's whole program on its chip model (the reference; default: every op "
            "priced through the simulated op table, within about 1%: docs/performance.md); "
            "--trace implies it")
      .flag("--no-op-cache", "neither read nor write the persistent op cache")
      .flag("--json", "print the results as JSON instead of a table")
      .flag("--quiet",
            "no progress line (on a terminal, the ops simulated on the chip model are counted as "
            "they run; --detailed: the ops each chip's program has done)")
      .text("-o,--output", "FILE.h5", "also write results to HDF5 (atomically)")
      .text("--trace", "FILE.json",
            "write a Perfetto / Chrome JSON timeline (atomically); with --system: critical paths, "
            "collectives replayed per link")
      .text("--trace-window", "START:END",
            "keep only that span of each chip's timeline (e.g. '0 s:5 ms')")
      .list("--trace-chips", "NAME[,NAME]",
            "keep only those chips in the timeline (with --system: chip numbers, e.g. 0,3)")
      .text("--trace-file", "FILE|DIR|PREFIX",
            "run one chip role's trace file (native .yaml or Chakra .et) on the single --chip "
            "instead of a study; collectives are reported as not simulated. With --system: a "
            "multi-rank Chakra trace (files PREFIX.<rank>.et) on the system, compute on its chip "
            "model, collectives on its network (docs/traces-chakra.md)")
      .text("--comm-groups", "FILE",
            "with --system --trace-file: ASTRA-sim's communicator JSON {\"<id>\": [ranks]} for the "
            "collectives' pg_name")
      .text("--compute", "chip|durations",
            "with --system --trace-file: cost compute nodes on the chip model (default) or replay "
            "their recorded durations")
      .count("--trace-max-events", "N",
             "at most N slices per thread and points per counter in the timeline (default 5000; "
             "the rest are counted, not shown)")
      .note(
          "A study file may name a system: instead of chips:, with kv_placement, mapping, "
          "fidelity and overlap (docs/schemas.md).");
  return s;
}

RunOptions parse_run(const std::vector<std::string>& args) {
  const ParsedOptions p = run_options().parse(args);
  RunOptions r;
  r.study_file = p.text("--study");
  r.chips = p.list("--chip");
  r.system = p.text("--system");
  read_system_flags(p, r.system_args);
  r.model = p.text("--model");
  r.batch = p.count("--batch");
  r.isl = p.count("--isl");
  r.osl = p.count("--osl");
  r.seed = p.count("--seed");
  r.precision = p.text("--precision");
  r.power_cap = p.text("--power-cap");
  r.json = p.flag("--json");
  r.quiet = p.flag("--quiet");
  r.detailed = p.flag("--detailed");
  r.op_cache = !p.flag("--no-op-cache");
  r.h5_output = p.text("--output");
  r.trace_output = p.text("--trace");
  r.trace_window = p.text("--trace-window");
  r.trace_chips = p.list("--trace-chips");
  r.trace_file = p.text("--trace-file");
  r.comm_groups = p.text("--comm-groups");
  r.compute = p.text("--compute");
  r.trace_max_events = p.count("--trace-max-events");
  r.study_flags = r.study_file || r.model || r.batch || r.isl || r.osl || r.seed || r.precision ||
                  r.power_cap || r.system || r.system_args.any_system_flag || r.h5_output ||
                  r.trace_output || r.trace_window || !r.trace_chips.empty() || r.trace_max_events;
  return r;
}

}  // namespace scoville::cli
