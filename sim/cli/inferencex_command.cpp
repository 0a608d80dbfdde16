// `scoville inferencex`: the InferenceX benchmark on simulated hardware. A closed loop of N
// clients (10 x N requests, lengths uniform in [0.8, 1] x nominal) per concurrency, priced by the
// simulated op table (default), the roofline's closed form or (--fidelity cycle) the SystemC
// system engine; prints throughput per chip against interactivity with the Pareto frontier.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/json_text.hpp"
#include "sim/cli/arg_reader.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/engine/serving_engines.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/output/serving_points_output.hpp"
#include "sim/serving/serving_point.hpp"

#include "sim/cli/progress_bar.hpp"
#include "sim/cli/serving_trace_flags.hpp"
#include "sim/config/config_files.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/mapping_loader.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/output/output_paths.hpp"
#include "sim/serving/physical_limits.hpp"
#include "workloads/model_loader.hpp"

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
      --software NAME|FILE          software overheads profile (arch/software; default none)
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

struct Options {
  std::string system, chip, model;
  int64_t chips = 0;
  int64_t isl = 0, osl = 0;
  std::vector<int64_t> concurrency;
  int64_t tp = 0, ep = 1, attn_dp = 1;
  std::string mapping_file;
  bool search = false;
  int64_t prompts_per_client = 10;
  double range_ratio = 0.8;
  int64_t max_num_seqs = 0;
  int64_t max_batched_tokens = 8192;
  int64_t mtp_depth = 0;
  double mtp_acceptance = 0.0;
  std::string software;
  bool calibration = true;       // apply the system file's calibration overlay, if any
  std::string calibration_file;  // --calibration: this overlay instead
  std::string fidelity = "op-table";
  bool op_cache = true;
  std::optional<std::string> power_cap;
  std::string kv_placement = "local";
  uint64_t seed = 1;
  bool json = false, quiet = false;
  std::string output;
  ServingTraceArgs trace;
  std::optional<int64_t> trace_point;
};

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

Options parse(const std::vector<std::string>& args) {
  Options o;
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

// --system names a chip when arch/chips has it, or when the file is a chip file.
bool names_chip(const std::string& name) {
  const config::DataPaths paths = config::DataPaths::from_environment();
  const std::string path = paths.resolve(name, "arch/chips");
  if (!std::filesystem::exists(path)) return false;
  if (path != name) return true;  // resolved by name in arch/chips
  return config::detect_kind(path) == config::FileKind::kChip;
}

workloads::MappingConfig single_pool(int64_t tp, int64_t ep, int64_t attn_dp) {
  workloads::PoolMapping p;
  p.pool = "default";
  p.chips = tp;
  p.degrees.tp = tp;
  p.degrees.ep = ep;
  p.degrees.attn_dp = attn_dp;
  p.where = SourceLocation{"<command line>", 0, 0};
  return workloads::MappingConfig{{p}};
}

workloads::PoolMapping pool_of(const std::string& name, int64_t chips, bool moe, int64_t attn_dp) {
  workloads::PoolMapping p = single_pool(chips, moe ? chips : 1, attn_dp).pools.front();
  p.pool = name;
  return p;
}

// Disaggregated candidates of --search: decode pools of D = the largest power of two up to
// chips / 2 and D / 2, each with prefill pools of D, D / 2 and D / 4 chips (a small set of
// prefill:decode ratios, as the published disaggregated configurations use); each pool is
// tensor parallel over its chips (expert parallel too for MoE), the decode pool with and without
// attention-DP. Chips left over are not counted (the per-chip metrics divide by the pools').
std::vector<workloads::MappingConfig> disaggregated_candidates(bool moe, int64_t chips) {
  std::vector<workloads::MappingConfig> out;
  if (chips < 2) return out;
  int64_t top = 1;
  while (top * 2 <= chips / 2) top *= 2;
  std::vector<std::pair<int64_t, int64_t>> splits;  // (prefill, decode), no repeats
  for (int64_t decode : {top, top / 2}) {
    for (int64_t prefill : {decode, decode / 2, decode / 4}) {
      const std::pair<int64_t, int64_t> split{prefill, decode};
      if (decode < 1 || prefill < 1 || prefill + decode > chips) continue;
      if (std::find(splits.begin(), splits.end(), split) != splits.end()) continue;
      splits.push_back(split);
    }
  }
  for (const auto& [prefill, decode] : splits) {
    const std::vector<int64_t> attn =
        decode > 1 ? std::vector<int64_t>{1, decode} : std::vector<int64_t>{1};
    for (int64_t attn_dp : attn) {
      out.push_back(workloads::MappingConfig{
          {pool_of("prefill", prefill, moe, 1), pool_of("decode", decode, moe, attn_dp)}});
    }
  }
  return out;
}

std::vector<workloads::MappingConfig> candidates(const Options& o,
                                                 const workloads::ModelConfig& model,
                                                 int64_t chips) {
  if (!o.mapping_file.empty()) return {config::load_mapping(o.mapping_file)};
  if (!o.search) return {single_pool(o.tp != 0 ? o.tp : chips, o.ep, o.attn_dp)};
  const bool moe = model.ffn().type == workloads::FfnType::kMoe;
  std::vector<workloads::MappingConfig> out;
  for (int64_t tp = 1; tp <= chips; tp *= 2) {
    const std::vector<int64_t> eps =
        moe && tp > 1 ? std::vector<int64_t>{1, tp} : std::vector<int64_t>{1};
    const std::vector<int64_t> attn =
        tp > 1 ? std::vector<int64_t>{1, tp} : std::vector<int64_t>{1};
    for (int64_t ep : eps) {
      for (int64_t attn_dp : attn) out.push_back(single_pool(tp, ep, attn_dp));
    }
    // More chips than EP can split the experts over (ep = tp refused): attention-DP over all
    // of them, the experts replicated over tp / ep groups of the widest ep that divides both.
    const int64_t wide_ep = moe ? std::gcd(model.ffn().experts, tp) : 1;
    if (wide_ep > 1 && wide_ep < tp) out.push_back(single_pool(tp, wide_ep, tp));
  }
  for (workloads::MappingConfig& m : disaggregated_candidates(moe, chips)) {
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

int inferencex_command(const Invocation& invocation, std::ostream& out) {
  const Options o = parse(invocation.args);
  output::RunFiles files;
  files.named_input("--system", o.system, "arch/systems");
  files.named_input("--chip", o.chip, "arch/chips");
  files.named_input("--model", o.model, "workloads/models");
  files.input("--mapping", o.mapping_file);
  files.input("--calibration", o.calibration_file);
  files.output("-o", o.output);
  files.output("--trace", o.trace.output.value_or(""));
  files.check();
  const output::TraceOptions trace_options = serving_trace_options(o.trace);
  const int64_t traced_concurrency = o.trace_point.value_or(o.concurrency.front());
  bool traced = false;
  const config::DataPaths paths = config::DataPaths::from_environment();
  const bool chip_system = names_chip(o.system);
  const bool cycle = o.fidelity == "cycle";
  if (cycle && chip_system) {
    throw UsageError{
        "--fidelity cycle needs --system to name a system file (arch/systems), not "
        "the chip '" +
        o.system + "'"};
  }
  std::string chip = chip_system ? o.system : o.chip;
  if (chip.empty()) {
    // A system file names its chip (arch/systems/*.yaml `chip:`); --chip overrides it.
    const config::SystemConfig system = config::load_system(o.system, paths);
    if (system.chip_file.empty()) {
      throw UsageError{"--system " + o.system +
                       " is a system file without a chip: give the chip with --chip"};
    }
    chip = system.chip_file;
  }
  const workloads::ModelConfig model =
      workloads::load_model(paths.resolve(o.model, "workloads/models"));
  serving::check_context(model, o.isl, o.osl, SourceLocation{"<command line>", 0, 0}, "--isl");
  int64_t chips = o.chips;
  if (chips == 0) chips = o.tp != 0 ? o.tp : 8;
  int64_t network_chips = chips;
  std::vector<workloads::MappingConfig> mappings = candidates(o, model, chips);
  if (cycle && mappings.front().pools.size() != 1) {
    throw UsageError{"--fidelity cycle prices one co-located pool; the mapping " +
                     serving::mapping_label(mappings.front()) + " is disaggregated"};
  }
  for (const auto& m : mappings) {
    int64_t total = 0;
    for (const auto& p : m.pools) total += p.chips;
    network_chips = std::max(network_chips, total);
  }
  const engine::ServingFidelity level = engine::parse_serving_fidelity(o.fidelity);
  engine::ServingHardware hw =
      engine::resolve_hardware(chip, chip_system ? "" : o.system, network_chips, o.software,
                               o.calibration && o.calibration_file.empty(), level);
  if (!o.calibration_file.empty()) {
    engine::apply_calibration_file(hw, paths.resolve(o.calibration_file, "arch/systems"), level);
  }
  engine::set_kv_placement(hw, o.kv_placement);
  if (o.power_cap) {
    engine::apply_power_cap(hw, engine::parse_power_cap(*o.power_cap, "--power-cap"),
                            SourceLocation{"<command line>", 0, 0}, "--power-cap");
  }
  // The op table's chip model is elaborated here, before anything simulates.
  if (o.fidelity == "op-table") engine::use_op_table(hw, o.op_cache);
  // The cycle engine prices hardware only: it has no calibration overlays.
  const std::string calibration =
      cycle ? "not applied (cycle fidelity)" : engine::calibration_label(hw);

  serving::SchedulerConfig scheduler;
  scheduler.max_num_batched_tokens = o.max_batched_tokens;
  scheduler.mtp.depth = o.mtp_depth;
  scheduler.mtp.acceptance = o.mtp_acceptance;

  std::vector<serving::ServingPoint> points;
  std::vector<std::string> skipped;
  Progress progress(static_cast<int64_t>(mappings.size() * o.concurrency.size()), o.quiet);
  for (const workloads::MappingConfig& mapping : mappings) {
    const std::string label = serving::mapping_label(mapping);
    std::optional<engine::ServingEngine> engine;
    try {
      engine.emplace(
          cycle ? engine::make_cycle_engine(hw, o.system, model, mapping.pools.front(), scheduler)
                : engine::make_engine(hw, model, mapping, scheduler));
    } catch (const InputError& e) {
      if (!o.search) throw;
      skipped.push_back(label + ": " + e.what());
      for (size_t i = 0; i < o.concurrency.size(); ++i) progress.step(label);
      continue;
    }
    for (int64_t n : o.concurrency) {
      serving::ServingScenario scenario;
      scenario.workload.kind = workloads::ArrivalKind::kClosedLoop;
      scenario.workload.concurrency = n;
      scenario.workload.num_prompts = o.prompts_per_client * n;
      scenario.workload.lengths = {o.isl, o.osl, o.range_ratio};
      scenario.system = engine->system;
      for (serving::PoolConfig& p : scenario.system.pools) {
        p.scheduler.max_num_seqs = o.max_num_seqs != 0 ? o.max_num_seqs : n;
        // max_num_batched_tokens: per attention-DP rank, set by engine::make_engine
        // (serving_common).
      }
      scenario.metrics.tdp_per_chip = hw.chip.power.tdp;
      engine::set_power_inputs(hw, scenario.metrics);
      serving::ServingPoint point;
      point.mapping = label;
      point.concurrency = n;
      const workloads::PoolMapping& first = mapping.pools.back();
      point.tp = first.degrees.tp;
      point.ep = first.degrees.ep;
      point.attn_dp = first.degrees.attn_dp;
      point.chips = scenario.system.total_chips();
      // One point is traced; the recorder only watches (same results with and without).
      const bool trace_this = o.trace.output && !traced && n == traced_concurrency;
      output::ServingTimelineRecorder recorder;
      try {
        point.result =
            serving::run_serving(scenario, *engine->cost, o.seed, trace_this ? &recorder : nullptr);
      } catch (const InputError& e) {
        if (!o.search) throw;
        skipped.push_back(label + " at concurrency " + std::to_string(n) + ": " + e.what());
        progress.step(label);
        continue;
      }
      if (trace_this) {
        write_serving_trace(*o.trace.output, scenario.system, point.result, recorder,
                            "inferencex " + label + " at concurrency " + std::to_string(n),
                            output::Provenance::current(invocation.argc, invocation.argv, o.seed),
                            trace_options);
        traced = true;
      }
      serving::fill_point_stats(point);
      // The per-token gaps made the ITL metrics (computed above) and nothing after them reads
      // them: kept for every point of a search they were most of its memory (8 KB a request).
      for (serving::RequestRecord& r : point.result.trace.records) {
        std::vector<Duration>().swap(r.itl);
      }
      points.push_back(std::move(point));
      progress.step(label + " N=" + std::to_string(n));
    }
  }
  if (points.empty()) {
    std::string why;
    for (const std::string& s : skipped) why += "\n  " + s;
    throw InputError(SourceLocation{"<command line>", 0, 0}, "--search",
                     "no feasible mapping:" + why);
  }
  if (o.trace.output && !traced) {
    throw InputError(SourceLocation{"<command line>", 0, 0}, "--trace-point",
                     "no feasible mapping ran concurrency " + std::to_string(traced_concurrency) +
                         ", so there is no point to trace");
  }
  serving::mark_pareto(points);
  if (!o.quiet && hw.op_cost) std::cerr << "scoville: " << engine::op_table_report(hw) << "\n";

  if (!o.output.empty()) {
    output::write_points_h5(o.output, points, invocation.argc, invocation.argv, o.seed,
                            {{"system", hw.system_name},
                             {"chip", hw.chip.name},
                             {"model", model.name()},
                             {"fidelity", o.fidelity},
                             {"calibration", calibration},
                             {"kv_placement", hw.kv_placement},
                             {"isl", std::to_string(o.isl)},
                             {"osl", std::to_string(o.osl)}});
  }
  std::vector<serving::ServingPoint> shown;
  for (const serving::ServingPoint& p : points) {
    if (!o.search || p.pareto) shown.push_back(p);
  }
  if (o.json) {
    const std::string header =
        "\"system\": \"" + output::json_escape(hw.system_name) + "\", \"chip\": \"" +
        output::json_escape(hw.chip.name) + "\", \"model\": \"" +
        output::json_escape(model.name()) + "\", \"isl\": " + std::to_string(o.isl) +
        ", \"osl\": " + std::to_string(o.osl) + ", \"fidelity\": \"" + o.fidelity +
        "\", \"calibration\": \"" + output::json_escape(calibration) + "\", \"kv_placement\": \"" +
        hw.kv_placement + "\", \"points_tried\": " + std::to_string(points.size()) + ", ";
    output::print_points_json(out, header, shown);
    return 0;
  }
  out << "# scoville inferencex: " << model.name() << " on " << hw.system_name << " ("
      << hw.chip.name << "), ISL " << o.isl << ", OSL " << o.osl << ", " << o.fidelity
      << " fidelity (docs/serving.md), calibration " << calibration;
  if (hw.kv_placement != "local") out << ", KV " << hw.kv_placement;
  out << "\n";
  if (o.search) {
    out << "# --search: " << points.size() << " points tried, " << shown.size()
        << " on the Pareto frontier shown; " << skipped.size() << " infeasible\n";
  }
  if (hw.chip.power.management.present) {
    out << "# power cap " << hw.chip.power.management.cap.si() << " W per chip (cap controller, "
        << "docs/power.md); idle and thr: shares of chip-time idle and throttled\n";
  }
  output::print_points_table(out, shown);
  return 0;
}

}  // namespace scoville::cli
