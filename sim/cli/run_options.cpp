#include "sim/cli/run_options.hpp"

#include "sim/base/error.hpp"
#include "sim/cli/arg_reader.hpp"

namespace scoville::cli {

extern const char kRunUsage[] =
    R"(  scoville run [options]            simulate a study and print per-chip, per-phase results
      --study FILE                  study YAML (default: the embedded default study)
      --chip NAME|FILE              chip(s) to simulate, repeatable or comma-separated
                                    (names resolve to arch/chips/NAME.yaml)
                                    (a study file may name a system: instead of chips:, with
                                    kv_placement, mapping, fidelity, overlap: docs/schemas.md)
      --system NAME|FILE            a multi-chip system (arch/systems/NAME.yaml): simulates the
                                    batch on it and reports per-phase time and energy with
                                    the breakdown per component (docs/systems.md); a chip name
                                    here still means --chip
      --kv-placement NAME           with --system: local, striped, sram_window, remote_pool or
                                    disaggregated (default local)
      --tp N --ep N --pp N --dp N --attn-dp N
                                    with --system: the mapping (default tp = min(8, local
                                    domain), ep = tp for MoE models)
      --mapping FILE                with --system: mapping YAML instead of the degrees
      --fidelity representative|all with --system: one chip per role, or every chip
      --overlap none|two_batch      with --system: compute/communication overlap
      --routing expected|uniform|zipf[:S]
                                    with --system: MoE routing; a drawn one (seeded by
                                    --seed) loads the EP ranks unevenly (docs/systems.md)
      --reuse-repeated-ops          with --system: simulate an op repeated between the same
                                    neighbours once (faster, approximate: docs/systems.md)
      --software NAME|FILE|none     with --system: the serving stack (arch/software; default
                                    the system file's own; none: hardware time alone)
      --model NAME|FILE             model (names resolve to workloads/models/NAME.yaml)
      --batch N                     sequences per iteration
      --isl N                       input (prompt) tokens per sequence
      --osl N                       output tokens per sequence
      --seed N                      run seed (recorded in outputs)
      --precision CLASS=FMT,...     number formats per tensor class over the model's, e.g.
                                    weights=fp8,kv_cache=fp8 (classes: weights, experts,
                                    embeddings, activations, kv_cache; formats: bf16, fp8,
                                    mxfp4, nvfp4)
      --power-cap POWER             cap every chip's power, e.g. '500 W' or 500W (needs the
                                    chip's power_management section; docs/power.md)
      --detailed                    run each chip's whole program on its chip model (the
                                    reference; default: every op priced through the simulated
                                    op table, within about 1%: docs/performance.md); --trace
                                    implies it
      --no-op-cache                 neither read nor write the persistent op cache
      --json                        print the results as JSON instead of a table
      --quiet                       no progress line (on a terminal, the ops simulated on the
                                    chip model are counted as they run; --detailed: the ops
                                    each chip's program has done)
      -o, --output FILE.h5          also write results to HDF5 (atomically)
      --trace FILE.json             write a Perfetto / Chrome JSON timeline (atomically); with
                                    --system: critical paths, collectives replayed per link
      --trace-window START:END      keep only that span of each chip's timeline (e.g. '0 s:5 ms')
      --trace-chips NAME[,NAME]     keep only those chips in the timeline (with --system:
                                    chip numbers, e.g. 0,3)
      --trace-file FILE             run one chip role's trace file (native .yaml or Chakra
                                    .et) on the single --chip instead of a study; collectives
                                    are reported as not simulated
      --trace-file DIR|PREFIX       with --system: run a multi-rank Chakra trace (files
                                    PREFIX.<rank>.et) on the system, compute on its chip
                                    model, collectives on its network (docs/traces-chakra.md)
      --comm-groups FILE            with --system --trace-file: ASTRA-sim's communicator JSON
                                    {"<id>": [ranks]} for the collectives' pg_name
      --compute chip|durations      with --system --trace-file: cost compute nodes on the chip
                                    model (default) or replay their recorded durations
      --trace-max-events N          at most N slices per thread and points per counter in the
                                    timeline (default 5000; the rest are counted, not shown)
)";

RunOptions parse_run(const std::vector<std::string>& args) {
  RunOptions r;
  ArgReader a("scoville run", args);
  while (a.next()) {
    if (a.is("--study")) {
      r.study_file = a.value();
    } else if (a.is("--chip")) {
      for (const std::string& chip : a.list()) r.chips.push_back(chip);
    } else if (a.is("--system")) {
      r.system = a.value();
    } else if (read_system_flag(a, r.system_args)) {
      // handled
    } else if (a.is("--model")) {
      r.model = a.value();
    } else if (a.is("--batch")) {
      r.batch = a.count();
    } else if (a.is("--isl")) {
      r.isl = a.count();
    } else if (a.is("--osl")) {
      r.osl = a.count();
    } else if (a.is("--seed")) {
      r.seed = a.count();
    } else if (a.is("--precision")) {
      r.precision = a.value();
    } else if (a.is("--power-cap")) {
      r.power_cap = a.value();
    } else if (a.is("--json")) {
      r.json = true;
    } else if (a.is("--quiet")) {
      r.quiet = true;
    } else if (a.is("--detailed")) {
      r.detailed = true;
    } else if (a.is("--no-op-cache")) {
      r.op_cache = false;
    } else if (a.is("-o") || a.is("--output")) {
      r.h5_output = a.value();
    } else if (a.is("--trace")) {
      r.trace_output = a.value();
    } else if (a.is("--trace-window")) {
      r.trace_window = a.value();
    } else if (a.is("--trace-chips")) {
      r.trace_chips = a.list();
    } else if (a.is("--trace-file")) {
      r.trace_file = a.value();
    } else if (a.is("--comm-groups")) {
      r.comm_groups = a.value();
    } else if (a.is("--compute")) {
      r.compute = a.value();
    } else if (a.is("--trace-max-events")) {
      r.trace_max_events = a.count();
    } else {
      a.unknown();
    }
  }
  r.study_flags = r.study_file || r.model || r.batch || r.isl || r.osl || r.seed || r.precision ||
                  r.power_cap || r.system || r.system_args.any_system_flag || r.h5_output ||
                  r.trace_output || r.trace_window || !r.trace_chips.empty() || r.trace_max_events;
  return r;
}

}  // namespace scoville::cli
