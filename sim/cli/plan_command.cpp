// `scoville plan`: the configurations (mapping, prefill / decode pool split, batch limit) that
// serve a load best on a system within TTFT / TPOT limits, ranked by goodput per chip. The
// search is sim/engine/plan_search.*, the table and results file sim/output/plan_output.*.
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/cli/request_trace_flags.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/engine/inferencex_sweep.hpp"
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
          "--requests.");
  return s;
}

namespace {

struct PlanOptions {
  std::string system, model, software, fidelity = "op-table", output;
  int64_t isl = 0, osl = 0, num_prompts = 256, max_batched_tokens = 8192, top = 5;
  double range_ratio = 0.8;
  std::vector<int64_t> concurrency, max_batch{16, 64, 256};
  std::vector<double> rates;
  RequestTraceArgs requests;
  std::optional<engine::LatencyLimit> ttft, tpot;
  bool calibration = true, quiet = false;
  uint64_t seed = 1;
};

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
  read_limits(p, o);
  o.requests = request_trace_args(p);
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
  positive("--num-prompts", o.num_prompts);
  if (p.given("--max-batch")) {
    o.max_batch.clear();
    for (long long v : p.count_list("--max-batch")) {
      if (v < 1) throw UsageError("--max-batch: expected limits >= 1");
      o.max_batch.push_back(v);
    }
  }
  positive("--max-batched-tokens", o.max_batched_tokens);
  o.fidelity = p.text_or("--fidelity", o.fidelity);
  o.software = p.text_or("--software", "");
  o.calibration = !p.flag("--no-calibration");
  positive("--top", o.top);
  o.seed = static_cast<uint64_t>(p.count("--seed").value_or(1));
  o.output = p.text_or("--output", "");
  if (p.given("--output") && !output::is_table_file(o.output)) {
    throw UsageError("-o: expected FILE.h5 or FILE.csv, got '" + o.output + "'");
  }
  o.quiet = p.flag("--quiet");
  if (o.system.empty() || o.model.empty()) throw UsageError("--system and --model are required");
  if (!o.ttft || !o.tpot)
    throw UsageError("a TTFT and a TPOT limit are required (--ttft-p99 T --tpot-p99 T)");
  const int loads = !o.concurrency.empty() + !o.rates.empty() + o.requests.requests.has_value();
  if (loads != 1) throw UsageError("give the load as one of --concurrency, --rate or --requests");
  if (!o.requests.requests && (o.isl == 0 || o.osl == 0)) {
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
  base.lengths = {o.isl, o.osl, o.range_ratio};
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
    l.requests.num_prompts = o.num_prompts;
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
  files.named_input("--system", o.system, "arch/systems");
  files.named_input("--model", o.model, "workloads/models");
  files.input("--requests", o.requests.requests.value_or(""));
  files.output("-o", o.output);
  files.check();
  const config::DataPaths paths = config::DataPaths::from_environment();
  const config::SystemConfig system = config::load_system(o.system, paths);
  const std::string& chip = config::require_chip(system);
  const workloads::ModelConfig model =
      workloads::load_model(paths.resolve(o.model, "workloads/models"));
  if (!o.requests.requests) {
    serving::check_context(model, o.isl, o.osl, SourceLocation{"<command line>", 0, 0}, "--isl");
  }
  const engine::ServingFidelity level = engine::parse_serving_fidelity(o.fidelity);
  engine::ServingHardware hw =
      engine::resolve_hardware(chip, paths.resolve(o.system, "arch/systems"), system.chips,
                               o.software, o.calibration, level);
  // The op table's chip model is elaborated here, before anything simulates.
  if (level == engine::ServingFidelity::kOpTable) engine::use_op_table(hw, true);

  engine::PlanQuery query;
  query.mappings = engine::sweep_mappings(engine::MappingChoice{"", true}, model, system.chips);
  query.loads = loads_of(o);
  query.max_batch = o.max_batch;
  query.scheduler.max_num_batched_tokens = o.max_batched_tokens;
  query.ttft = *o.ttft;
  query.tpot = *o.tpot;
  query.seed = o.seed;
  output::ProgressReporter progress("plan", engine::plan_point_count(query), o.quiet);
  const engine::PlanResult result = engine::plan_search(
      hw, model, query, [&](const std::string& label) { progress.step(label); });
  progress.finish();
  if (!o.quiet && hw.op_cost) std::cerr << "scoville: " << engine::op_table_report(hw) << "\n";

  const std::string calibration = engine::calibration_label(hw);
  if (!o.output.empty()) {
    const output::Provenance prov =
        output::Provenance::current(invocation.argc, invocation.argv, o.seed);
    output::write_table_file(o.output, output::plan_table(query, result),
                             {{"schema", std::string("scoville.results")},
                              {"schema_version", int64_t{1}},
                              {"file_kind", std::string("plan")},
                              {"tool_version", prov.tool_version},
                              {"git_sha", prov.git_sha},
                              {"command_line", prov.command_line},
                              {"created_utc", prov.created_utc},
                              {"seed", static_cast<int64_t>(o.seed)},
                              {"system", hw.system_name},
                              {"chip", hw.chip.name},
                              {"model", model.name()},
                              {"fidelity", o.fidelity},
                              {"calibration", calibration}});
  }
  out << "# scoville plan: " << model.name() << " on " << hw.system_name << " (" << hw.chip.name
      << ", " << system.chips << " chips), " << o.fidelity << " fidelity, calibration "
      << calibration << "; " << query.mappings.size() << " mappings, batch limits";
  for (int64_t b : o.max_batch) out << " " << b;
  out << "; " << result.points.size() << " points run, " << result.skipped.size()
      << " infeasible\n";
  const std::string miss = output::plan_miss_summary(query, result);
  if (!miss.empty()) {
    throw InputError(SourceLocation{"<command line>", 0, 0},
                     "--ttft-p" + std::to_string(query.ttft.percentile), miss);
  }
  output::print_plan_table(out, query, result, o.top);
  return 0;
}

}  // namespace scoville::cli
