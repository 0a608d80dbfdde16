// `scoville plan`: the configurations (mapping, prefill / decode pool split, batch limit) that
// serve a load best on a system within TTFT / TPOT limits, ranked by goodput per chip. The
// search is sim/engine/plan_search.*, the table and results file sim/output/plan_output.*.
#include <algorithm>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/cli/op_simulation_progress.hpp"
#include "sim/cli/request_trace_flags.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/scenario_loader.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/engine/inferencex_sweep.hpp"
#include "sim/engine/plan_scenario.hpp"
#include "sim/engine/plan_search.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/output/output_paths.hpp"
#include "sim/output/plan_output.hpp"
#include "sim/output/progress.hpp"
#include "sim/output/provenance.hpp"
#include "sim/output/table_file.hpp"
#include "sim/serving/physical_limits.hpp"
#include "workloads/model_loader.hpp"

namespace scoville::cli {

OptionSet plan_options() {
  OptionSet s("plan");
  s.synopsis("--system NAME|FILE --model NAME|FILE --ttft-p99 T --tpot-p99 T [options]",
             "the best mappings, pool splits and batch limits within the latency limits, ranked "
             "by goodput per chip per load")
      .synopsis("--scenario FILE [options]",
                "the same for a serving scenario's system, model, load and SLO limits")
      .text("--scenario", "FILE",
            "a serving scenario (workloads/scenarios/*.yaml) gives the system (its chip, chips "
            "and network), model, software, request lengths and load, scheduler, seed and its "
            "slo.ttft / slo.tpot as p99 limits; the flags override each (its mapping and "
            "max_num_seqs are searched, not taken)")
      .text("--system", "NAME|FILE", "a multi-chip system (arch/systems/NAME.yaml)")
      .text("--model", "NAME|FILE", "model (names resolve to workloads/models/NAME.yaml)")
      .count("--isl", "N", "nominal input tokens (lengths uniform in [--range-ratio, 1] x nominal)")
      .count("--osl", "N", "nominal output tokens")
      .text("--range-ratio", "R", "the shortest length as a share of nominal (default 0.8)")
      .count_list("--concurrency", "N[,N...]",
                  "closed loops of N clients, 10 x N requests (InferenceX)", true)
      .list("--rate", "R[,R...]",
            "or Poisson arrivals at R requests/s, --num-prompts requests each", true)
      .count("--num-prompts", "N", "requests per --rate load (default 256)");
  declare_request_trace_flags(s, "or replay a request trace (as scoville serve takes it)");
  for (const char* metric : {"ttft", "tpot"}) {
    for (const char* pct : {"99", "90", "50"}) {
      s.text(std::string("--") + metric + "-p" + pct, "T",
             std::string(metric[1] == 't' ? "TTFT" : "TPOT") + " limit at the " + pct +
                 "th percentile (e.g. '2 s', '50ms'; a bare number is ms)");
    }
  }
  s.count_list("--max-batch", "N[,N...]",
               "batch limits tried (max_num_seqs; default 16,64,256; a closed loop of N clients "
               "takes at most N)")
      .count("--max-batched-tokens", "N", "token budget per iteration and attention-DP rank (8192)")
      .text("--fidelity", "op-table|roofline",
            "iteration pricing (default op-table), as for inferencex")
      .text("--software", "NAME|FILE", "software overheads profile (arch/software)")
      .flag("--no-calibration", "ignore the system file's calibration overlay")
      .count("--top", "K", "rows shown per load (default 5)")
      .count("--seed", "N", "request seed (default 1)")
      .text("-o,--output", "FILE.h5|FILE.csv", "every point of the search, ranked (atomically)")
      .flag("--quiet", "no progress line")
      .note(
          "Give one TTFT and one TPOT limit, and the load as one of --concurrency, --rate or "
          "--requests (or --scenario FILE, whose slo and requests fill in what is not given).");
  return s;
}

namespace {

struct PlanOptions {
  std::string system, model, software, fidelity = "op-table", output, scenario_file;
  int64_t isl = 0, osl = 0, top = 5;
  std::optional<int64_t> num_prompts, max_batched_tokens;
  std::optional<double> range_ratio;
  std::vector<int64_t> concurrency, max_batch{16, 64, 256};
  std::vector<double> rates;
  RequestTraceArgs requests;
  std::optional<engine::LatencyLimit> ttft, tpot;
  bool calibration = true, quiet = false;
  std::optional<uint64_t> seed;
  std::optional<config::ServingStudySpec> scenario;  // --scenario, loaded
};

// Defaults of the flags neither given nor in a scenario.
constexpr int64_t kDefaultNumPrompts = 256;
constexpr int64_t kDefaultMaxBatchedTokens = 8192;
constexpr double kDefaultRangeRatio = 0.8;

// The scenario's values for what the flags did not give; its requests are the load unless a
// load flag gave one (`load_given`).
void apply_scenario(PlanOptions& o, config::ServingStudySpec spec, bool load_given) {
  // Its system: the chip (and network) a system file names, or a chip (switch built from its
  // ports, as serve builds it); --system replaces all of it.
  if (o.model.empty()) o.model = spec.model;
  if (o.software.empty()) o.software = spec.software;
  if (o.isl == 0) o.isl = spec.requests.lengths.input_tokens;
  if (o.osl == 0) o.osl = spec.requests.lengths.output_tokens;
  if (!o.range_ratio) o.range_ratio = spec.requests.lengths.range_ratio;
  if (!o.max_batched_tokens) o.max_batched_tokens = spec.scheduler.max_num_batched_tokens;
  if (!o.seed) o.seed = spec.seed;
  if (!o.ttft) o.ttft = engine::scenario_ttft_limit(spec);
  if (!o.tpot) o.tpot = engine::scenario_tpot_limit(spec);
  if (!load_given) {
    apply_request_trace_args(o.requests, spec.requests);
    if (!o.num_prompts) o.num_prompts = spec.requests.num_prompts;
  }
  o.scenario = std::move(spec);
}

// A plain number > 0 (and at most `max`), the whole of `text`.
double positive_number(const std::string& flag, const std::string& text, double max) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && v > 0 && v <= max) return v;
  } catch (const std::logic_error&) {
  }
  throw UsageError(flag + ": expected a number above 0" + (max == 1.0 ? " and at most 1" : "") +
                   ", found '" + text + "'");
}

// "50ms", "2 s", or a bare number of milliseconds.
Duration parse_limit(const std::string& flag, const std::string& text) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) {
      if (v > 0) return Duration(v * 1e-3);
      throw UsageError(flag + ": expected a positive duration, found '" + text + "'");
    }
  } catch (const std::logic_error&) {
  }
  double s = 0;
  try {
    s = parse_quantity(text, Dimension::kDuration);
  } catch (const std::runtime_error&) {  // UnitParseError: the message below says it all
  }
  if (!(s > 0)) {
    throw UsageError(flag + ": expected a positive duration ('50ms', '2 s', or ms), found '" +
                     text + "'");
  }
  return Duration(s);
}

// The one TTFT and the one TPOT limit, whichever percentile each is given at.
void read_limits(const ParsedOptions& p, PlanOptions& o) {
  for (const int pct : {50, 90, 99}) {
    for (const bool is_ttft : {true, false}) {
      const std::string flag = std::string(is_ttft ? "--ttft-p" : "--tpot-p") + std::to_string(pct);
      const std::optional<std::string> value = p.text(flag);
      if (!value) continue;
      std::optional<engine::LatencyLimit>& slot = is_ttft ? o.ttft : o.tpot;
      if (slot) throw UsageError(flag + ": one " + (is_ttft ? "TTFT" : "TPOT") + " limit only");
      slot = engine::LatencyLimit{parse_limit(flag, *value), pct};
    }
  }
}

PlanOptions parse_plan(const std::vector<std::string>& args) {
  const ParsedOptions p = plan_options().parse(args);
  PlanOptions o;
  // A count that must be at least 1, into `into` when given.
  auto positive = [&](const char* flag, int64_t& into) {
    const std::optional<long long> v = p.count(flag);
    if (!v) return;
    if (*v < 1) throw UsageError(std::string(flag) + ": expected at least 1");
    into = *v;
  };
  auto positive_opt = [&](const char* flag, std::optional<int64_t>& into) {
    int64_t v = 0;
    positive(flag, v);
    if (v > 0) into = v;
  };
  read_limits(p, o);
  o.requests = request_trace_args(p);
  o.scenario_file = p.text_or("--scenario", "");
  o.system = p.text_or("--system", "");
  o.model = p.text_or("--model", "");
  positive("--isl", o.isl);
  positive("--osl", o.osl);
  if (const auto v = p.text("--range-ratio")) {
    o.range_ratio = positive_number("--range-ratio", *v, 1.0);
  }
  for (long long v : p.count_list("--concurrency")) {
    if (v < 1) throw UsageError("--concurrency: expected clients >= 1");
    o.concurrency.push_back(v);
  }
  for (const std::string& v : p.list("--rate"))
    o.rates.push_back(positive_number("--rate", v, 1e9));
  positive_opt("--num-prompts", o.num_prompts);
  if (p.given("--max-batch")) {
    o.max_batch.clear();
    for (long long v : p.count_list("--max-batch")) {
      if (v < 1) throw UsageError("--max-batch: expected limits >= 1");
      o.max_batch.push_back(v);
    }
  }
  positive_opt("--max-batched-tokens", o.max_batched_tokens);
  o.fidelity = p.text_or("--fidelity", o.fidelity);
  o.software = p.text_or("--software", "");
  o.calibration = !p.flag("--no-calibration");
  positive("--top", o.top);
  if (const auto seed = p.count("--seed")) o.seed = static_cast<uint64_t>(*seed);
  o.output = p.text_or("--output", "");
  if (p.given("--output") && !output::is_table_file(o.output)) {
    throw UsageError("-o: expected FILE.h5 or FILE.csv, got '" + o.output + "'");
  }
  o.quiet = p.flag("--quiet");
  const int loads = !o.concurrency.empty() + !o.rates.empty() + o.requests.requests.has_value();
  if (loads > 1) throw UsageError("give the load as one of --concurrency, --rate or --requests");
  if (!o.scenario_file.empty()) {
    apply_scenario(o, config::load_scenario(o.scenario_file), loads > 0);
  } else {
    if (o.system.empty() || o.model.empty()) {
      throw UsageError("--system and --model are required (or --scenario FILE)");
    }
    if (loads == 0) throw UsageError("give the load as one of --concurrency, --rate or --requests");
  }
  if (!o.ttft || !o.tpot) {
    throw UsageError("a TTFT and a TPOT limit are required (--ttft-p99 T --tpot-p99 T)" +
                     std::string(o.scenario ? ": the scenario's slo has not both" : ""));
  }
  const bool trace =
      o.requests.requests ||
      (o.scenario && loads == 0 && o.scenario->requests.kind == workloads::ArrivalKind::kTrace);
  if (!trace && (o.isl == 0 || o.osl == 0)) {
    throw UsageError("--isl and --osl are required (or --requests FILE)");
  }
  if (engine::parse_serving_fidelity(o.fidelity) == engine::ServingFidelity::kCycle) {
    throw UsageError(
        "--fidelity cycle prices one mapping per process; expected op-table or roofline");
  }
  return o;
}

std::vector<engine::PlanLoad> loads_of(const PlanOptions& o) {
  std::vector<engine::PlanLoad> loads;
  workloads::RequestPattern base;
  base.lengths = {o.isl, o.osl, o.range_ratio.value_or(kDefaultRangeRatio)};
  if (o.scenario && o.concurrency.empty() && o.rates.empty() && !o.requests.requests) {
    engine::PlanLoad l = engine::scenario_load(*o.scenario);
    l.requests.lengths = base.lengths;
    if (o.num_prompts) l.requests.num_prompts = *o.num_prompts;
    return {l};
  }
  for (int64_t n : o.concurrency) {
    engine::PlanLoad l{"N=" + std::to_string(n), base};
    l.requests.kind = workloads::ArrivalKind::kClosedLoop;
    l.requests.concurrency = n;
    l.requests.num_prompts = 10 * n;
    loads.push_back(l);
  }
  for (double r : o.rates) {
    std::ostringstream label;
    label << "rate=" << r << "/s";
    engine::PlanLoad l{label.str(), base};
    l.requests.kind = workloads::ArrivalKind::kPoisson;
    l.requests.rate = r;
    l.requests.num_prompts = o.num_prompts.value_or(kDefaultNumPrompts);
    loads.push_back(l);
  }
  if (o.requests.requests) {
    engine::PlanLoad l{"trace", base};
    l.requests.kind = workloads::ArrivalKind::kTrace;
    apply_request_trace_args(o.requests, l.requests);
    loads.push_back(l);
  }
  return loads;
}

}  // namespace

int plan_command(const Invocation& invocation, std::ostream& out) {
  const PlanOptions o = parse_plan(invocation.args);
  output::RunFiles files;
  files.input("--scenario", o.scenario_file);
  if (!o.system.empty()) files.named_input("--system", o.system, "arch/systems");
  files.named_input(o.scenario ? "scenario model" : "--model", o.model, "workloads/models");
  files.input("--requests", o.requests.requests.value_or(""));
  files.output("-o", o.output);
  files.check();
  const config::DataPaths paths = config::DataPaths::from_environment();
  // The system: a system file (--system), else the scenario's chip, chips and network.
  std::string chip, network;
  int64_t chips = 0;
  if (!o.system.empty()) {
    const config::SystemConfig system = config::load_system(o.system, paths);
    chip = config::require_chip(system);
    network = paths.resolve(o.system, "arch/systems");
    chips = system.chips;
  } else {
    chip = o.scenario->chip;
    network = o.scenario->network;
    int64_t pool_chips = 0;  // as serve sizes it: the pools' chips, or more if it says so
    for (const auto& pool : o.scenario->mapping.pools) pool_chips += pool.chips;
    chips = std::max(pool_chips, o.scenario->chips);
  }
  const workloads::ModelConfig model =
      workloads::load_model(paths.resolve(o.model, "workloads/models"));
  engine::PlanQuery query;
  query.loads = loads_of(o);
  const bool trace = std::any_of(query.loads.begin(), query.loads.end(), [](const auto& l) {
    return l.requests.kind == workloads::ArrivalKind::kTrace;
  });
  if (!trace) {
    serving::check_context(model, o.isl, o.osl, SourceLocation{"<command line>", 0, 0}, "--isl");
  }
  const engine::ServingFidelity level = engine::parse_serving_fidelity(o.fidelity);
  engine::ServingHardware hw =
      engine::resolve_hardware(chip, network, chips, o.software, o.calibration, level);
  // The op table's chip model is elaborated here, before anything simulates.
  if (level == engine::ServingFidelity::kOpTable) engine::use_op_table(hw, true);

  query.mappings = engine::sweep_mappings(engine::MappingChoice{"", true}, model, chips);
  query.max_batch = o.max_batch;
  // The scenario's scheduler (chunked prefill, block size, policy, MTP) where there is one;
  // max_num_seqs is what the search varies.
  if (o.scenario) query.scheduler = o.scenario->scheduler;
  query.scheduler.max_num_batched_tokens = o.max_batched_tokens.value_or(kDefaultMaxBatchedTokens);
  query.ttft = *o.ttft;
  query.tpot = *o.tpot;
  query.seed = o.seed.value_or(1);
  output::ProgressReporter progress("plan", engine::plan_point_count(query), o.quiet);
  const PointActivity activity(progress);
  const engine::PlanResult result = engine::plan_search(
      hw, model, query, [&](const std::string& label) { progress.step(label); });
  progress.finish();
  if (!o.quiet && hw.op_cost) std::cerr << "scoville: " << engine::op_table_report(hw) << "\n";

  const std::string calibration = engine::calibration_label(hw);
  if (!o.output.empty()) {
    const output::Provenance prov =
        output::Provenance::current(invocation.argc, invocation.argv, query.seed);
    output::Attributes root{{"schema", std::string("scoville.results")},
                            {"schema_version", int64_t{1}},
                            {"file_kind", std::string("plan")},
                            {"tool_version", prov.tool_version},
                            {"git_sha", prov.git_sha},
                            {"command_line", prov.command_line},
                            {"created_utc", prov.created_utc},
                            {"seed", static_cast<int64_t>(query.seed)},
                            {"system", hw.system_name},
                            {"chip", hw.chip.name},
                            {"model", model.name()},
                            {"fidelity", o.fidelity},
                            {"calibration", calibration}};
    if (o.scenario) {
      root.emplace_back("scenario", o.scenario->name);
      root.emplace_back("scenario_file", o.scenario_file);
    }
    output::write_table_file(o.output, output::plan_table(query, result), root);
  }
  out << "# scoville plan: " << model.name() << " on " << hw.system_name << " (" << hw.chip.name
      << ", " << chips << " chips), " << o.fidelity << " fidelity, calibration " << calibration
      << "; " << query.mappings.size() << " mappings, batch limits";
  for (int64_t b : o.max_batch) out << " " << b;
  out << "; " << result.points.size() << " points run, " << result.skipped.size()
      << " infeasible\n";
  if (o.scenario) {
    out << "# scenario " << o.scenario->name << " (" << o.scenario_file << "): load "
        << query.loads.front().label << ", limits TTFT p" << query.ttft.percentile << " "
        << query.ttft.limit.si() * 1e3 << " ms, TPOT p" << query.tpot.percentile << " "
        << query.tpot.limit.si() * 1e3 << " ms\n";
  }
  const std::string miss = output::plan_miss_summary(query, result);
  if (!miss.empty()) {
    throw InputError(SourceLocation{"<command line>", 0, 0},
                     "--ttft-p" + std::to_string(query.ttft.percentile), miss);
  }
  output::print_plan_table(out, query, result, o.top);
  return 0;
}

}  // namespace scoville::cli
