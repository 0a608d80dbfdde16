#include "sim/cli/inferencex_options.hpp"

#include <algorithm>
#include <sstream>

#include "sim/base/error.hpp"
#include "sim/cli/arg_reader.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/serving/scheduling_policy.hpp"

namespace scoville::cli {

extern const char kInferencexUsage[] =
    R"(  scoville inferencex [options]     InferenceX sweep: throughput per chip vs interactivity
      --system NAME|FILE            a chip (arch/chips: one pool of --chips chips on a switch
                                    built from its ports) or a system file (arch/systems: its
                                    network and, unless --chip is given, its chip)
      --chip NAME|FILE              the chip, over the system file's own
      --chips N                     chips available (default 8, or the tp of the mapping)
      --model NAME|FILE             model (workloads/models)
      --isl N --osl N               nominal input and output tokens per request
      --concurrency N[,N...]        clients (default 1,2,4,...,1024)
      --tp N [--ep N] [--attn-dp N] the mapping of one pool of tp chips (default tp = --chips)
      --mapping FILE                a mapping YAML instead (one pool, or prefill and decode)
      --search                      try the feasible TP / EP / attention-DP mappings up to
                                    --chips, and prefill:decode pool splits of them, per
                                    concurrency; print the Pareto frontier
      --prompts-per-client K        requests per client (default 10: InferenceX's 10 x N)
      --range-ratio R               lengths uniform in [R, 1] x nominal (default 0.8)
      --max-num-seqs N              sequences per batch (default: the concurrency)
      --max-batched-tokens N        token budget per iteration and attention-DP rank
                                    (default 8192; vLLM and SGLang schedule each rank)
      --mtp-depth K --mtp-acceptance A   multi-token prediction (accepted tokens count)
      --draft-model NAME|FILE       speculative decoding with this draft model instead of
                                    MTP heads: --mtp-depth drafts per step, priced on the
                                    same chips (docs/serving.md, "Draft-model speculation")
      --scheduler-policy NAME       which running sequences an iteration serves first: fcfs
                                    (default, vLLM) or decode-first (TensorRT-LLM)
      --handoff NAME                disaggregated mappings: queue-at-decode (default) or
                                    reserve-decode-slot (prefill starts with a decode slot held)
      --software NAME|FILE|none     the serving stack (arch/software; default the system
                                    file's own; none: hardware time alone, as for a chip)
      --no-calibration              ignore the system file's calibration overlay
      --calibration FILE            apply this overlay (arch/systems/*.calibration.yaml form,
                                    fitted at the run's fidelity) instead of the system
                                    file's own, to any system or chip
      --fidelity op-table|roofline|cycle   iteration pricing (default op-table: every
                                    distinct op priced once on the SystemC chip model, kept
                                    in the persistent op cache, with the system's
                                    <name>.op-table.calibration.yaml); roofline: the closed
                                    form at the chip's peaks (the fast bound, with
                                    <name>.calibration.yaml); cycle runs each iteration on the
                                    SystemC system engine (with its iteration cache); needs a
                                    system file, one co-located pool, no --search
      --no-op-cache                 op-table: neither read nor write the persistent op cache
                                    ($SCOVILLE_CACHE_DIR, else ~/.cache/scoville/ops)
      --power-cap POWER             cap every chip's power, e.g. '500 W': its controller
                                    throttles the clock (the chip needs power_management)
      --kv-placement NAME           where the KV cache lives: local (default), striped,
                                    sram_window or remote_pool (host memory, its capacity;
                                    needs a system file with a host); docs/serving.md
      --seed N                      request seed (default 1)
      --json                        print JSON instead of the table
      -o, --output FILE.h5          write /points and /requests (atomically)
      --quiet                       no progress bar (it shows only on a terminal anyway)
      --trace FILE.json             write a Perfetto / Chrome JSON timeline of one point: a
                                    process per pool, a thread per request
                                    (docs/results-format.md, Timelines)
      --trace-point N               the concurrency traced (one of --concurrency; default the
                                    first); with --search, the first mapping that runs it
      --trace-window START:END      keep only that span of the timeline (e.g. '0 s:2 s')
      --trace-max-events N          at most N slices per thread, points per counter and
                                    request threads (default 5000)
)";

namespace {

// A number in [lo, hi], or in (lo, hi] when low_open; the message shows the bounds as checked.
double parse_fraction(const std::string& flag, const std::string& text, double lo, double hi,
                      bool low_open = false) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && (low_open ? v > lo : v >= lo) && v <= hi) return v;
  } catch (const std::exception&) {
  }
  std::ostringstream bounds;
  bounds << (low_open ? "(" : "[") << lo << ", " << hi << "]";
  throw UsageError{flag + ": expected a number in " + bounds.str() + ", found '" + text + "'"};
}

}  // namespace

InferencexOptions parse_inferencex_options(const std::vector<std::string>& args) {
  InferencexOptions o;
  ArgReader a("scoville inferencex", args);
  auto positive = [&](const char* flag) {
    const long long v = a.count();
    if (v < 1) throw UsageError{std::string(flag) + ": expected at least 1"};
    return static_cast<int64_t>(v);
  };
  while (a.next()) {
    if (read_serving_trace_flag(a, o.trace)) {
      continue;
    } else if (a.is("--trace-point")) {
      o.trace_point = positive("--trace-point");
    } else if (a.is("--system")) {
      o.system = a.value();
    } else if (a.is("--chip")) {
      o.chip = a.value();
    } else if (a.is("--chips")) {
      o.chips = positive("--chips");
      // As many as a system file may hold (sim/config/system_loader.cpp): a network is built
      // for them before any mapping is checked.
      if (o.chips > (1 << 20)) throw UsageError{"--chips: expected 1 to 1048576"};
    } else if (a.is("--model")) {
      o.model = a.value();
    } else if (a.is("--isl")) {
      o.isl = positive("--isl");
    } else if (a.is("--osl")) {
      o.osl = positive("--osl");
    } else if (a.is("--concurrency")) {
      for (long long v : a.count_list()) {
        if (v < 1) throw UsageError{"--concurrency: expected clients >= 1"};
        o.concurrency.push_back(v);
      }
    } else if (a.is("--tp")) {
      o.tp = positive("--tp");
    } else if (a.is("--ep")) {
      o.ep = positive("--ep");
    } else if (a.is("--attn-dp")) {
      o.attn_dp = positive("--attn-dp");
    } else if (a.is("--mapping")) {
      o.mapping_file = a.value();
    } else if (a.is("--search")) {
      o.search = true;
    } else if (a.is("--prompts-per-client")) {
      o.prompts_per_client = positive("--prompts-per-client");
    } else if (a.is("--range-ratio")) {
      o.range_ratio = parse_fraction("--range-ratio", a.value(), 0.0, 1.0, true);
    } else if (a.is("--max-num-seqs")) {
      o.max_num_seqs = positive("--max-num-seqs");
    } else if (a.is("--max-batched-tokens")) {
      o.max_batched_tokens = positive("--max-batched-tokens");
    } else if (a.is("--scheduler-policy")) {
      o.policy = a.value();
      if (!serving::is_batching_policy(o.policy)) {
        throw UsageError{"--scheduler-policy: expected " +
                         list_of_choices(serving::batching_policy_names()) + ", found '" +
                         o.policy + "'"};
      }
    } else if (a.is("--handoff")) {
      o.handoff = a.value();
      if (!serving::is_handoff_policy(o.handoff)) {
        throw UsageError{"--handoff: expected " + list_of_choices(serving::handoff_policy_names()) +
                         ", found '" + o.handoff + "'"};
      }
    } else if (a.is("--draft-model")) {
      o.draft_model = a.value();
    } else if (a.is("--mtp-depth")) {
      o.mtp_depth = a.count();
    } else if (a.is("--mtp-acceptance")) {
      o.mtp_acceptance = parse_fraction("--mtp-acceptance", a.value(), 0.0, 1.0);
    } else if (a.is("--software")) {
      o.software = a.value();
    } else if (a.is("--no-calibration")) {
      o.calibration = false;
    } else if (a.is("--calibration")) {
      o.calibration_file = a.value();
    } else if (a.is("--fidelity")) {
      o.fidelity = a.value();
    } else if (a.is("--no-op-cache")) {
      o.op_cache = false;
    } else if (a.is("--power-cap")) {
      o.power_cap = a.value();
    } else if (a.is("--kv-placement")) {
      o.kv_placement = a.value();
    } else if (a.is("--seed")) {
      o.seed = static_cast<uint64_t>(a.count());
    } else if (a.is("--json")) {
      o.json = true;
    } else if (a.is("--quiet")) {
      o.quiet = true;
    } else if (a.is("-o") || a.is("--output")) {
      o.output = a.value();
    } else {
      a.unknown();
    }
  }
  if (o.system.empty()) throw UsageError{"--system is required"};
  if (o.model.empty()) throw UsageError{"--model is required"};
  if (o.isl == 0 || o.osl == 0) throw UsageError{"--isl and --osl are required"};
  if (!o.mapping_file.empty() && (o.tp != 0 || o.search)) {
    throw UsageError{"--mapping excludes --tp and --search"};
  }
  if (o.search && o.tp != 0) throw UsageError{"--search excludes --tp"};
  engine::parse_serving_fidelity(o.fidelity);
  if (!o.op_cache && o.fidelity != "op-table") {
    throw UsageError{"--no-op-cache needs --fidelity op-table"};
  }
  // SystemC elaborates once per process: the cycle level builds one engine, for one mapping.
  if (o.fidelity == "cycle" && o.search) {
    throw UsageError{"--fidelity cycle excludes --search (one system engine per process)"};
  }
  if (!o.calibration_file.empty() && !o.calibration) {
    throw UsageError{"--calibration excludes --no-calibration"};
  }
  if (!o.calibration_file.empty() && o.fidelity == "cycle") {
    throw UsageError{
        "--calibration needs --fidelity op-table or roofline (the cycle level has "
        "no calibration)"};
  }
  if (!o.draft_model.empty() && o.mtp_depth < 1) {
    throw UsageError{"--draft-model needs --mtp-depth K (K >= 1 drafts per step)"};
  }
  if (o.concurrency.empty()) {
    for (int64_t n = 1; n <= 1024; n *= 2) o.concurrency.push_back(n);
  }
  if (o.trace_point) {
    if (!o.trace.output) throw UsageError{"--trace-point needs --trace FILE.json"};
    if (std::find(o.concurrency.begin(), o.concurrency.end(), *o.trace_point) ==
        o.concurrency.end()) {
      throw UsageError{"--trace-point " + std::to_string(*o.trace_point) +
                       " is not one of the --concurrency values"};
    }
  }
  return o;
}

}  // namespace scoville::cli
