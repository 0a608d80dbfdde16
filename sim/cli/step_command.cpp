// `scoville step`: one serving iteration (a decode step or a prefill) priced as `inferencex`,
// `serve` and `validate` price every iteration, shown by part: each fused op's time per layer and
// what bounds it (HBM, math, the stack's kernel path), each collective, and the serving stack's
// software time term by term. The parts add up to the iteration's time (the pricer's own
// arithmetic: sim/serving/iteration_explanation.hpp), so it answers "where does a step go?" for
// any system, stack and batch, and where a validated row is off, which op carries the difference.
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/json_text.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/cli/inferencex_options.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/engine/inferencex_sweep.hpp"
#include "sim/engine/serving_engines.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/serving/physical_limits.hpp"
#include "sim/serving/roofline_cost_model.hpp"
#include "workloads/model_loader.hpp"
#include "workloads/precision_override.hpp"
#include "workloads/request_sampling.hpp"

namespace scoville::cli {

OptionSet step_options() {
  OptionSet s("step");
  s.synopsis("--system NAME|FILE --model NAME|FILE --batch N --context N [options]",
             "one serving iteration priced as inferencex prices it, by op, collective and "
             "software term")
      .text("--system", "NAME|FILE", "system YAML (names resolve to arch/systems/NAME.yaml)")
      .text("--chip", "NAME|FILE", "the chip instead of the system file's own")
      .text("--model", "NAME|FILE", "model (names resolve to workloads/models/NAME.yaml)")
      .text("--phase", "decode|prefill",
            "decode (default): each sequence adds one token to --context cached ones; prefill: "
            "each sequence's whole prompt of --context tokens")
      .count("--batch", "N", "sequences in the iteration")
      .count("--context", "N", "tokens per sequence (see --phase)")
      .count("--tp", "N", "tensor-parallel degree (default 1); the pool has tp chips")
      .count("--ep", "N", "expert-parallel degree (default 1)")
      .count("--attn-dp", "N", "attention data-parallel degree (default 1)")
      .text("--software", "NAME|FILE|none",
            "the serving stack (arch/software; default the system file's own; none: hardware "
            "time alone)")
      .text("--precision", "CLASS=FMT,...",
            "number formats per tensor class over the model's, e.g. experts=mxfp4 (as run)")
      .text("--sampling", "greedy|top-p",
            "how the sequences draw their token (default greedy; top-p sorts the vocabulary "
            "on stacks that do: docs/software.md, \"Sampling\")")
      .flag("--no-calibration", "ignore the system's and the stack's calibration overlays")
      .text("--fidelity", "op-table|roofline",
            "op pricing (default op-table: the chip model's simulated op table)")
      .flag("--no-op-cache", "op-table: neither read nor write the persistent op cache")
      .flag("--json", "print the parts as JSON instead of a table");
  return s;
}

namespace {

struct StepOptions {
  std::string system, chip, model, software = std::string(config::kSystemSoftware);
  bool prefill = false;
  int64_t batch = 0, context = 0, tp = 1, ep = 1, attn_dp = 1;
  std::optional<std::string> precision;
  workloads::RequestSampling sampling = workloads::RequestSampling::kGreedy;
  bool calibration = true, op_cache = true, json = false;
  std::string fidelity = "op-table";
};

int64_t positive(const std::optional<long long>& v, const char* flag, int64_t fallback) {
  if (!v) return fallback;
  if (*v < 1) throw UsageError{std::string(flag) + ": expected at least 1"};
  return *v;
}

StepOptions parse_step(const std::vector<std::string>& args) {
  const ParsedOptions p = step_options().parse(args);
  StepOptions o;
  const auto system = p.text("--system");
  const auto model = p.text("--model");
  if (!system) throw UsageError{"--system is required"};
  if (!model) throw UsageError{"--model is required"};
  o.system = *system;
  o.model = *model;
  o.chip = p.text_or("--chip", "");
  const std::string phase = p.text_or("--phase", "decode");
  if (phase != "decode" && phase != "prefill") {
    throw UsageError{"--phase expects decode or prefill, got '" + phase + "'"};
  }
  o.prefill = phase == "prefill";
  if (!p.count("--batch")) throw UsageError{"--batch is required"};
  if (!p.count("--context")) throw UsageError{"--context is required"};
  o.batch = positive(p.count("--batch"), "--batch", 1);
  o.context = positive(p.count("--context"), "--context", 1);
  o.tp = positive(p.count("--tp"), "--tp", 1);
  o.ep = positive(p.count("--ep"), "--ep", 1);
  o.attn_dp = positive(p.count("--attn-dp"), "--attn-dp", 1);
  o.software = p.text_or("--software", std::string(config::kSystemSoftware));
  o.precision = p.text("--precision");
  o.sampling = parse_sampling_flag(p);
  o.calibration = !p.flag("--no-calibration");
  o.fidelity = p.text_or("--fidelity", "op-table");
  if (o.fidelity != "op-table" && o.fidelity != "roofline") {
    throw UsageError{"--fidelity expects op-table or roofline, got '" + o.fidelity + "'"};
  }
  o.op_cache = !p.flag("--no-op-cache");
  o.json = p.flag("--json");
  return o;
}

std::string time_text(Duration t) { return format_si(t.si(), "s", 4); }

std::string share_text(Duration part, Duration whole) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f%%", whole.si() > 0 ? 100.0 * part.si() / whole.si() : 0.0);
  return b;
}

std::string padded(const std::string& s, size_t width, bool right) {
  if (s.size() >= width) return s;
  const std::string fill(width - s.size(), ' ');
  return right ? fill + s : s + fill;
}

void print_table(std::ostream& out, const serving::IterationExplanation& why) {
  const Duration total = why.cost.time;
  const bool staged = !why.ops.empty() && why.ops.back().stage > 0;
  out << padded(staged ? "stage  op" : "op", 34, false) << padded("layers", 7, true)
      << padded("per layer", 12, true) << padded("total", 12, true) << padded("share", 8, true)
      << "  bound\n";
  for (const serving::OpTime& op : why.ops) {
    const std::string name = staged ? std::to_string(op.stage) + "      " + op.name : op.name;
    out << padded(name, 34, false) << padded(std::to_string(op.layers), 7, true)
        << padded(time_text(op.per_layer), 12, true) << padded(time_text(op.total()), 12, true)
        << padded(share_text(op.total(), total), 8, true) << "  " << to_string(op.bound) << "\n";
  }
  if (!why.collectives.empty()) {
    out << "\n"
        << padded("collective", 34, false) << padded("calls", 7, true)
        << padded("per call", 12, true) << padded("total", 12, true) << padded("share", 8, true)
        << "  kind, ranks, bytes per call\n";
    for (const serving::CollectiveTime& c : why.collectives) {
      out << padded(c.name, 34, false) << padded(std::to_string(c.layers), 7, true)
          << padded(time_text(c.per_layer), 12, true) << padded(time_text(c.total()), 12, true)
          << padded(share_text(c.total(), total), 8, true) << "  " << c.kind << ", " << c.group
          << ", " << format_si(c.bytes.si(), "B", 4) << "\n";
    }
  }
  if (why.host_kv_reads.si() > 0) {
    out << "\nKV reads over the host link: " << time_text(why.host_kv_reads) << " ("
        << share_text(why.host_kv_reads, total) << ")\n";
  }
  out << "\n"
      << padded("software", 34, false) << padded("count", 7, true) << padded("each", 12, true)
      << padded("total", 12, true) << padded("share", 8, true) << "\n";
  for (const serving::SoftwareTime& w : why.software) {
    if (w.count == 0 || w.each.si() == 0) continue;
    out << padded(w.part, 34, false) << padded(std::to_string(w.count), 7, true)
        << padded(time_text(w.each), 12, true) << padded(time_text(w.total()), 12, true)
        << padded(share_text(w.total(), total), 8, true) << "\n";
  }
  out << "\niteration: " << time_text(total) << " (the parts above add up to "
      << time_text(why.parts_total()) << "); energy " << format_si(why.cost.energy.si(), "J", 4)
      << " over the pool's chips\n";
}

void print_json(std::ostream& out, const StepOptions& o, const engine::ServingHardware& hw,
                const workloads::ModelConfig& model, const serving::IterationExplanation& why) {
  using output::json_escape;
  using output::json_number;
  out << "{\"system\": \"" << json_escape(hw.system_name) << "\", \"chip\": \""
      << json_escape(hw.chip.name) << "\", \"model\": \"" << json_escape(model.name())
      << "\", \"software\": \"" << json_escape(engine::software_label(hw))
      << "\", \"calibration\": \"" << json_escape(engine::calibration_label(hw))
      << "\", \"fidelity\": \"" << o.fidelity << "\", \"phase\": \""
      << (o.prefill ? "prefill" : "decode") << "\", \"batch\": " << o.batch
      << ", \"context\": " << o.context << ", \"tp\": " << o.tp << ", \"ep\": " << o.ep
      << ", \"attn_dp\": " << o.attn_dp << ", \"time_s\": " << json_number(why.cost.time.si())
      << ", \"parts_total_s\": " << json_number(why.parts_total().si())
      << ", \"energy_j\": " << json_number(why.cost.energy.si()) << ",\n \"ops\": [";
  for (size_t i = 0; i < why.ops.size(); ++i) {
    const serving::OpTime& op = why.ops[i];
    out << (i ? ",\n  " : "\n  ") << "{\"stage\": " << op.stage << ", \"name\": \""
        << json_escape(op.name) << "\", \"layers\": " << op.layers
        << ", \"per_layer_s\": " << json_number(op.per_layer.si())
        << ", \"total_s\": " << json_number(op.total().si()) << ", \"bound\": \""
        << to_string(op.bound) << "\"}";
  }
  out << "],\n \"collectives\": [";
  for (size_t i = 0; i < why.collectives.size(); ++i) {
    const serving::CollectiveTime& c = why.collectives[i];
    out << (i ? ",\n  " : "\n  ") << "{\"stage\": " << c.stage << ", \"name\": \""
        << json_escape(c.name) << "\", \"kind\": \"" << c.kind << "\", \"ranks\": " << c.group
        << ", \"bytes\": " << json_number(c.bytes.si()) << ", \"calls\": " << c.layers
        << ", \"per_call_s\": " << json_number(c.per_layer.si())
        << ", \"total_s\": " << json_number(c.total().si()) << "}";
  }
  out << "],\n \"host_kv_reads_s\": " << json_number(why.host_kv_reads.si())
      << ",\n \"software\": [";
  for (size_t i = 0; i < why.software.size(); ++i) {
    const serving::SoftwareTime& w = why.software[i];
    out << (i ? ",\n  " : "\n  ") << "{\"part\": \"" << w.part << "\", \"count\": " << w.count
        << ", \"each_s\": " << json_number(w.each.si())
        << ", \"total_s\": " << json_number(w.total().si()) << "}";
  }
  out << "]}\n";
}

}  // namespace

int step_command(const Invocation& invocation, std::ostream& out) {
  const StepOptions o = parse_step(invocation.args);
  const config::DataPaths paths = config::DataPaths::from_environment();
  // The system file's chip unless --chip names another (InputError for a system without one).
  const std::string chip =
      o.chip.empty() ? config::require_chip(config::load_system(o.system, paths)) : o.chip;
  workloads::ModelConfig model = workloads::load_model(paths.resolve(o.model, "workloads/models"));
  if (o.precision) {
    model = workloads::apply_precision_override(
        model, workloads::parse_precision_override(*o.precision, "--precision"));
  }
  const SourceLocation cli{"<command line>", 0, 0};
  // A decode step adds one token to the context; a prefill computes the whole prompt.
  serving::check_context(model, o.context, 1, cli, "--context");
  const engine::ServingFidelity level = engine::parse_serving_fidelity(o.fidelity);
  engine::ServingHardware hw =
      engine::resolve_hardware(chip, o.system, o.tp, o.software, o.calibration, level);
  if (level == engine::ServingFidelity::kOpTable) engine::use_op_table(hw, o.op_cache);

  // One pool of tp chips, as `inferencex --tp --ep --attn-dp` maps it.
  const workloads::MappingConfig mapping =
      engine::sweep_mappings(engine::MappingChoice{"", false, o.tp, o.ep, o.attn_dp}, model, o.tp)
          .front();
  const workloads::ModelConfig sampled = engine::sampled_model(model, hw, o.sampling);
  const engine::ServingEngine engine =
      engine::make_engine(hw, sampled, mapping, serving::SchedulerConfig{});
  const auto* pricer = dynamic_cast<const serving::RooflineCostModel*>(engine.cost.get());
  if (pricer == nullptr) {
    throw std::logic_error("scoville step: the engine's iteration pricer is not the op pricer");
  }

  serving::IterationBatch batch;
  batch.pool = 0;
  batch.chips = o.tp;
  serving::SequenceWork seq;
  if (o.prefill) {
    seq.phase = serving::SequencePhase::kPrefill;
    seq.new_tokens = o.context;
    seq.context_before = 0;
    seq.context_after = o.context;
  } else {
    seq.phase = serving::SequencePhase::kDecode;
    seq.new_tokens = 1;
    seq.context_before = o.context;
    seq.context_after = o.context + 1;
  }
  batch.sequences.assign(static_cast<size_t>(o.batch), seq);
  const serving::IterationExplanation why = pricer->explain(batch);

  if (o.json) {
    print_json(out, o, hw, sampled, why);
  } else {
    out << "step: " << (o.prefill ? "prefill of " : "decode step of ") << o.batch << " sequences "
        << (o.prefill ? "of " : "at ") << o.context
        << (o.prefill ? " prompt tokens" : " tokens of context") << "; " << sampled.name() << " on "
        << hw.system_name << " (" << hw.chip.name << "), tp " << o.tp << " ep " << o.ep
        << " attn_dp " << o.attn_dp << "\n"
        << "software " << engine::software_label(hw) << "; calibration "
        << engine::calibration_label(hw) << "; fidelity " << o.fidelity << "\n\n";
    print_table(out, why);
  }
  if (hw.op_cost) std::cerr << "scoville: " << engine::op_table_report(hw) << "\n";
  return 0;
}

}  // namespace scoville::cli
