#include "sim/cli/inferencex_options.hpp"

#include <algorithm>
#include <sstream>

#include "sim/base/error.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/serving/scheduling_policy.hpp"
#include "workloads/request_sampling.hpp"

namespace scoville::cli {

OptionSet inferencex_options() {
  OptionSet s("inferencex");
  s.synopsis("[options]", "InferenceX sweep: throughput per chip vs interactivity")
      .text("--system", "NAME|FILE",
            "a chip (arch/chips: one pool of --chips chips on a switch built from its ports) or a "
            "system file (arch/systems: its network and, unless --chip is given, its chip)")
      .text("--chip", "NAME|FILE", "the chip, over the system file's own")
      .count("--chips", "N", "chips available (default 8, or the tp of the mapping)")
      .text("--model", "NAME|FILE", "model (workloads/models)")
      .count("--isl", "N", "nominal input tokens per request")
      .count("--osl", "N", "nominal output tokens per request")
      .count_list("--concurrency", "N[,N...]", "clients (default 1,2,4,...,1024)", true)
      .count("--tp", "N", "the mapping of one pool of tp chips (default tp = --chips)")
      .count("--ep", "N", "expert-parallel degree of that pool (default 1)")
      .count("--attn-dp", "N", "attention data-parallel degree of that pool (default 1)")
      .text("--mapping", "FILE", "a mapping YAML instead (one pool, or prefill and decode)")
      .flag("--search",
            "try the feasible TP / EP / attention-DP mappings up to --chips, and prefill:decode "
            "pool splits of them, per concurrency; print the Pareto frontier")
      .count("--prompts-per-client", "K", "requests per client (default 10: InferenceX's 10 x N)")
      .text("--range-ratio", "R", "lengths uniform in [R, 1] x nominal (default 0.8)")
      .count("--max-num-seqs", "N", "sequences per batch (default: the concurrency)")
      .count("--max-batched-tokens", "N",
             "token budget per iteration and attention-DP rank (default 8192; vLLM and SGLang "
             "schedule each rank)")
      .count("--mtp-depth", "K", "multi-token prediction: tokens drafted per step")
      .text("--mtp-acceptance", "A",
            "multi-token prediction: the chance a drafted token is accepted (accepted tokens "
            "count)")
      .text("--draft-model", "NAME|FILE",
            "speculative decoding with this draft model instead of MTP heads: --mtp-depth drafts "
            "per step, priced on the same chips (docs/serving.md, \"Draft-model speculation\")")
      .text("--scheduler-policy", "NAME",
            "which work an iteration serves first: fcfs (default; vLLM v1: running sequences in "
            "admission order, so decodes before new prompts) or prefill-first (SGLang: prompts "
            "while any wait, decodes then)")
      .text("--handoff", "NAME",
            "disaggregated mappings: queue-at-decode (default) or reserve-decode-slot (prefill "
            "starts with a decode slot held)")
      .text("--software", "NAME|FILE|none",
            "the serving stack (arch/software; default the system file's own; none: hardware "
            "time alone, as for a chip)")
      .flag("--no-calibration", "ignore the system file's calibration overlay")
      .text("--calibration", "FILE",
            "apply this overlay (arch/systems/*.calibration.yaml form, fitted at the run's "
            "fidelity) instead of the system file's own, to any system or chip")
      .text("--fidelity", "op-table|roofline|cycle",
            "iteration pricing (default op-table: every distinct op priced once on the SystemC "
            "chip model, kept in the persistent op cache, with the system's "
            "<name>.op-table.calibration.yaml); roofline: the closed form at the chip's peaks "
            "(the fast bound, with <name>.calibration.yaml); cycle runs each iteration on the "
            "SystemC system engine (with its iteration cache); needs a system file, one "
            "co-located pool, no --search")
      .flag("--no-op-cache",
            "op-table: neither read nor write the persistent op cache ($SCOVILLE_CACHE_DIR, else "
            "~/.cache/scoville/ops)")
      .text("--power-cap", "POWER",
            "cap every chip's power, e.g. '500 W': its controller throttles the clock (the chip "
            "needs power_management)")
      .text("--kv-placement", "NAME",
            "where the KV cache lives: local (default), striped, sram_window or remote_pool "
            "(host memory, its capacity; needs a system file with a host); docs/serving.md")
      .text("--sampling", "greedy|top-p",
            "how the requests are sampled (default greedy, as InferenceX's client asks): top-p "
            "on a stack that sorts the vocabulary for it (vllm, rocm-vllm) prices that sort; "
            "docs/software.md, \"Sampling\"")
      .count("--seed", "N", "request seed (default 1)")
      .flag("--json", "print JSON instead of the table")
      .text("-o,--output", "FILE.h5", "write /points and /requests (atomically)")
      .flag("--quiet", "no progress bar (it shows only on a terminal anyway)");
  declare_serving_trace_flags(
      s,
      "write a Perfetto / Chrome JSON timeline of one point: a process per pool, a thread per "
      "request (docs/results-format.md, Timelines)");
  s.count("--trace-point", "N",
          "the concurrency traced (one of --concurrency; default the first); with --search, the "
          "first mapping that runs it");
  return s;
}

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

workloads::RequestSampling parse_sampling_flag(const ParsedOptions& p) {
  const std::string sampling = p.text_or("--sampling", "greedy");
  const std::optional<workloads::RequestSampling> parsed =
      workloads::parse_request_sampling(sampling);
  if (!parsed) {
    throw UsageError{"--sampling expects " + workloads::request_sampling_expected() + ", got '" +
                     sampling + "'"};
  }
  return *parsed;
}

InferencexOptions parse_inferencex_options(const std::vector<std::string>& args) {
  const ParsedOptions p = inferencex_options().parse(args);
  InferencexOptions o;
  // A count that must be at least 1, into `into` when given.
  auto positive = [&](const char* flag, int64_t& into) {
    const std::optional<long long> v = p.count(flag);
    if (!v) return;
    if (*v < 1) throw UsageError{std::string(flag) + ": expected at least 1"};
    into = *v;
  };
  o.trace = serving_trace_args(p);
  if (p.given("--trace-point")) {
    int64_t point = 0;
    positive("--trace-point", point);
    o.trace_point = point;
  }
  o.system = p.text_or("--system", "");
  o.chip = p.text_or("--chip", "");
  positive("--chips", o.chips);
  // As many as a system file may hold (sim/config/system_loader.cpp): a network is built for
  // them before any mapping is checked.
  if (o.chips > (1 << 20)) throw UsageError{"--chips: expected 1 to 1048576"};
  o.model = p.text_or("--model", "");
  positive("--isl", o.isl);
  positive("--osl", o.osl);
  for (long long v : p.count_list("--concurrency")) {
    if (v < 1) throw UsageError{"--concurrency: expected clients >= 1"};
    o.concurrency.push_back(v);
  }
  positive("--tp", o.tp);
  positive("--ep", o.ep);
  positive("--attn-dp", o.attn_dp);
  o.mapping_file = p.text_or("--mapping", "");
  o.search = p.flag("--search");
  positive("--prompts-per-client", o.prompts_per_client);
  if (const auto v = p.text("--range-ratio")) {
    o.range_ratio = parse_fraction("--range-ratio", *v, 0.0, 1.0, true);
  }
  positive("--max-num-seqs", o.max_num_seqs);
  positive("--max-batched-tokens", o.max_batched_tokens);
  o.policy = p.text_or("--scheduler-policy", o.policy);
  if (!serving::is_batching_policy(o.policy)) {
    throw UsageError{"--scheduler-policy: expected " +
                     list_of_choices(serving::batching_policy_names()) + ", found '" + o.policy +
                     "'"};
  }
  o.handoff = p.text_or("--handoff", o.handoff);
  if (!serving::is_handoff_policy(o.handoff)) {
    throw UsageError{"--handoff: expected " + list_of_choices(serving::handoff_policy_names()) +
                     ", found '" + o.handoff + "'"};
  }
  o.draft_model = p.text_or("--draft-model", "");
  o.mtp_depth = p.count("--mtp-depth").value_or(0);
  if (const auto v = p.text("--mtp-acceptance")) {
    o.mtp_acceptance = parse_fraction("--mtp-acceptance", *v, 0.0, 1.0);
  }
  o.software = p.text_or("--software", "");
  o.calibration = !p.flag("--no-calibration");
  o.calibration_file = p.text_or("--calibration", "");
  o.fidelity = p.text_or("--fidelity", o.fidelity);
  o.op_cache = !p.flag("--no-op-cache");
  o.power_cap = p.text("--power-cap");
  o.kv_placement = p.text_or("--kv-placement", o.kv_placement);
  o.sampling = parse_sampling_flag(p);
  o.seed = static_cast<uint64_t>(p.count("--seed").value_or(1));
  o.json = p.flag("--json");
  o.quiet = p.flag("--quiet");
  o.output = p.text_or("--output", "");
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
