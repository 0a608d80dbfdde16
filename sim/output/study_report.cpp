#include "sim/output/study_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "models/energy/energy_model.hpp"
#include "sim/base/json_text.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/base/yaml_reader.hpp"
#include "sim/output/power_timeline_tables.hpp"
#include "sim/output/terminal_style.hpp"

namespace scoville::output {

namespace {

constexpr int kSchemaVersion = 1;

std::string pad(const std::string& s, size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

std::string percent(double fraction) {
  char b[16];
  std::snprintf(b, sizeof(b), "%.0f%%", fraction * 100.0);
  return b;
}

std::string bound_text(const stats::PhaseResult& p, bool colour) {
  const stats::Bound b = p.dominant_bound();
  const Style style = b == stats::Bound::kCompute ? Style::kCompute
                      : b == stats::Bound::kHbm   ? Style::kHbm
                                                  : Style::kOther;
  return paint(stats::to_string(b), style, colour) + " " + percent(p.share(b));
}

}  // namespace

std::string render_text(const engine::StudyResult& result, bool colour) {
  const study::StudyConfig& s = result.study;
  std::ostringstream out;
  out << "Scoville " << tool_version() << " - study '" << s.name << "': " << s.chips.size()
      << " chip(s), model " << (result.chips.empty() ? s.model : result.chips.front().model)
      << ", batch " << s.batch << ", " << s.isl << " in / " << s.osl << " out tokens per sequence; "
      << engine::to_string(result.fidelity)
      << (result.fidelity == engine::StudyFidelity::kOpTable
              ? " (each distinct op simulated once on the chip model; --detailed for whole "
                "programs)"
              : " (each chip's whole program on its chip model)")
      << "\n\n";
  const bool software = !s.software.empty() && s.software != "none";
  const std::vector<size_t> w = {12, 9, 11, 13, 14, 11, 14};
  std::string header = pad("chip", w[0]) + pad("phase", w[1]) + pad("time", w[2]);
  if (software) header += pad("software", w[2]);
  header += pad("tokens/s", w[3]) + pad("energy/token", w[4]) + pad("avg power", w[5]) +
            "bound (share of time)";
  out << paint(header, Style::kBold, colour) << "\n";
  for (const stats::ChipResult& chip : result.chips) {
    bool first = true;
    for (const stats::PhaseResult& p : chip.phases) {
      out << pad(first ? chip.chip : "", w[0]) << pad(p.name, w[1])
          << pad(format_si(p.time.si(), "s", 3), w[2]);
      if (software) out << pad(format_si(p.software_time.si(), "s", 3), w[2]);
      out << pad(format_si(p.tokens_per_second(), "tok/s", 3), w[3])
          << pad(format_si(p.energy_per_token().si(), "J", 3), w[4])
          << pad(format_si(p.average_power().si(), "W", 3), w[5]) << bound_text(p, colour) << "\n";
      first = false;
    }
  }
  out << "\n";
  for (const stats::ChipResult& chip : result.chips) {
    const stats::PhaseResult& prefill = chip.phases[0];
    const stats::PhaseResult& decode = chip.phases[1];
    const double e2e = prefill.total_time().si() + decode.total_time().si();
    out << chip.chip << ": request " << format_si(e2e, "s", 3) << " end to end, "
        << format_si(decode.total_time().si() / static_cast<double>(chip.osl), "s", 3)
        << " per output token; memory "
        << format_si((chip.weight_bytes + chip.kv_bytes).si(), "B", 3) << " of "
        << format_si(chip.hbm_capacity.si(), "B", 3) << " (weights "
        << format_si(chip.weight_bytes.si(), "B", 3) << ", KV "
        << format_si(chip.kv_bytes.si(), "B", 3) << "); TDP " << format_si(chip.tdp.si(), "W", 3)
        << "\n";
  }
  for (const stats::ChipResult& chip : result.chips) {
    if (!chip.power_managed) continue;
    out << chip.chip << " power (cap " << format_si(chip.power_cap.si(), "W", 3) << ", idle "
        << format_si(chip.idle_power.si(), "W", 3) << "):";
    for (const stats::PhaseResult& p : chip.phases) {
      out << " " << p.name << " avg " << format_si(p.average_power().si(), "W", 3) << " peak "
          << format_si(p.power.peak_total.si(), "W", 3) << ", throttled "
          << percent(p.time.si() > 0 ? p.power.throttled_time / p.time : 0.0) << " at "
          << format_si(p.power.effective_frequency(p.time).si(), "Hz", 3) << " effective"
          << (&p == &chip.phases.back() ? "" : ";");
    }
    out << "\n";
  }
  out << "\nBound: compute = matrix/vector engines, hbm = HBM bandwidth, other = latency, on-chip\n"
         "bandwidth or imbalance. "
      << (software ? "time = hardware time; software = the '" + s.software +
                         "' profile's launch, sync and host overheads (tokens/s and request "
                         "times include both).\n"
                   : std::string("Hardware time only: the study names no software profile "
                                 "(software: none, zero overheads).\n"));
  return out.str();
}

std::string render_json(const engine::StudyResult& result, const Provenance& provenance) {
  const study::StudyConfig& s = result.study;
  std::ostringstream out;
  out << "{\n  \"schema\": \"scoville.run\",\n  \"schema_version\": " << kSchemaVersion
      << ",\n  \"tool_version\": \"" << json_escape(provenance.tool_version)
      << "\",\n  \"git_sha\": \"" << json_escape(provenance.git_sha)
      << "\",\n  \"seed\": " << s.seed << ",\n  \"study\": {\"name\": \"" << json_escape(s.name)
      << "\", \"model\": \"" << json_escape(s.model) << "\", \"batch\": " << s.batch
      << ", \"isl\": " << s.isl << ", \"osl\": " << s.osl << ", \"software\": \""
      << json_escape(s.software.empty() ? "none" : s.software) << "\", \"fidelity\": \""
      << engine::to_string(result.fidelity) << "\"},\n  \"chips\": [";
  for (size_t c = 0; c < result.chips.size(); ++c) {
    const stats::ChipResult& chip = result.chips[c];
    out << (c ? "," : "") << "\n    {\"chip\": \"" << json_escape(chip.chip) << "\", \"model\": \""
        << json_escape(chip.model) << "\", \"tdp_W\": " << json_number(chip.tdp.si())
        << ", \"weight_bytes\": " << json_number(chip.weight_bytes.si())
        << ", \"kv_bytes\": " << json_number(chip.kv_bytes.si())
        << ", \"hbm_capacity_bytes\": " << json_number(chip.hbm_capacity.si())
        << ", \"peak_flop_rate_FLOP_per_s\": " << json_number(chip.peak_flop_rate.si())
        << ", \"peak_hbm_bandwidth_B_per_s\": " << json_number(chip.peak_hbm_bandwidth.si())
        << ", \"power_managed\": " << (chip.power_managed ? "true" : "false")
        << ", \"power_cap_W\": " << json_number(chip.power_managed ? chip.power_cap.si() : 0.0)
        << ", \"nominal_clock_Hz\": " << json_number(chip.nominal_clock.si())
        << ", \"idle_power_W\": " << json_number(chip.idle_power.si()) << ",\n     \"phases\": [";
    for (size_t i = 0; i < chip.phases.size(); ++i) {
      const stats::PhaseResult& p = chip.phases[i];
      out << (i ? "," : "") << "\n       {\"name\": \"" << p.name
          << "\", \"time_s\": " << json_number(p.time.si())
          << ", \"software_time_s\": " << json_number(p.software_time.si())
          << ", \"tokens\": " << p.tokens << ", \"iterations\": " << p.iterations
          << ", \"tokens_per_s\": " << json_number(p.tokens_per_second())
          << ", \"energy_J\": " << json_number(p.energy.total().si())
          << ", \"energy_per_token_J\": " << json_number(p.energy_per_token().si())
          << ", \"avg_power_W\": " << json_number(p.average_power().si())
          << ", \"flops\": " << json_number(p.flops.si())
          << ", \"hbm_bytes\": " << json_number(p.hbm_bytes.si()) << ", \"bound\": \""
          << stats::to_string(p.dominant_bound()) << "\", \"bound_share\": {";
      bool first = true;
      for (stats::Bound b : {stats::Bound::kCompute, stats::Bound::kHbm, stats::Bound::kOther}) {
        out << (first ? "" : ", ") << "\"" << stats::to_string(b)
            << "\": " << json_number(p.share(b));
        first = false;
      }
      out << "}, \"throttled_time_s\": " << json_number(p.power.throttled_time.si())
          << ", \"gating_stall_s\": " << json_number(p.power.stall_time.si())
          << ", \"effective_frequency_Hz\": "
          << json_number(p.power.effective_frequency(p.time).si())
          << ", \"peak_power_W\": " << json_number(p.power.peak_total.si());
      out << ", \"peak_power_by_component_W\": {";
      for (size_t k = 0; k < p.power.peak_power.size(); ++k) {
        out << (k ? ", " : "") << "\"" << models::component_names()[k]
            << "\": " << json_number(p.power.peak_power[k].si());
      }
      out << "}, \"energy_by_component_J\": {";
      const std::vector<Energy> parts = p.energy.by_component();
      for (size_t k = 0; k < parts.size(); ++k) {
        out << (k ? ", " : "") << "\"" << models::component_names()[k]
            << "\": " << json_number(parts[k].si());
      }
      out << "}}";
    }
    out << "\n     ]}";
  }
  out << "\n  ]\n}\n";
  return out.str();
}

namespace {

Column text_column(const std::string& name, std::vector<std::string> v) {
  return Column{name, "", std::move(v)};
}
Column int_column(const std::string& name, const std::string& units, std::vector<int64_t> v) {
  return Column{name, units, std::move(v)};
}
Column real_column(const std::string& name, const std::string& units, std::vector<double> v) {
  return Column{name, units, std::move(v)};
}

Table phases_table(const engine::StudyResult& r) {
  std::vector<std::string> chip, phase, bound;
  std::vector<int64_t> tokens, iterations;
  std::vector<double> time, software, tps, energy, ept, power, flops, hbm;
  for (const stats::ChipResult& c : r.chips) {
    for (const stats::PhaseResult& p : c.phases) {
      chip.push_back(c.chip);
      phase.push_back(p.name);
      bound.push_back(stats::to_string(p.dominant_bound()));
      tokens.push_back(p.tokens);
      iterations.push_back(p.iterations);
      time.push_back(p.time.si());
      software.push_back(p.software_time.si());
      tps.push_back(p.tokens_per_second());
      energy.push_back(p.energy.total().si());
      ept.push_back(p.energy_per_token().si());
      power.push_back(p.average_power().si());
      flops.push_back(p.flops.si());
      hbm.push_back(p.hbm_bytes.si());
    }
  }
  return Table{
      "/phases",
      {text_column("chip", chip), text_column("phase", phase), real_column("time_s", "s", time),
       real_column("software_time_s", "s", software), int_column("tokens", "1", tokens),
       int_column("iterations", "1", iterations), real_column("tokens_per_s", "1/s", tps),
       real_column("energy_J", "J", energy), real_column("energy_per_token_J", "J", ept),
       real_column("avg_power_W", "W", power), real_column("flops", "FLOP", flops),
       real_column("hbm_bytes", "B", hbm), text_column("bound", bound)},
      {}};
}

Table energy_table(const engine::StudyResult& r) {
  std::vector<std::string> chip, phase, component;
  std::vector<double> energy, power, peak;
  for (const stats::ChipResult& c : r.chips) {
    for (const stats::PhaseResult& p : c.phases) {
      const std::vector<Energy> parts = p.energy.by_component();
      for (size_t k = 0; k < parts.size(); ++k) {
        chip.push_back(c.chip);
        phase.push_back(p.name);
        component.push_back(models::component_names()[k]);
        energy.push_back(parts[k].si());
        power.push_back(p.time.si() > 0 ? parts[k].si() / p.time.si() : 0.0);
        peak.push_back(k < p.power.peak_power.size() ? p.power.peak_power[k].si() : 0.0);
      }
    }
  }
  return Table{"/energy",
               {text_column("chip", chip), text_column("phase", phase),
                text_column("component", component), real_column("energy_J", "J", energy),
                real_column("avg_power_W", "W", power), real_column("peak_power_W", "W", peak)},
               {{"description", std::string("peak_power_W: highest average power of any one op")}}};
}

Table power_table(const engine::StudyResult& r) {
  std::vector<std::string> chip, phase;
  std::vector<int64_t> managed;
  std::vector<double> cap, avg, peak, throttled, share, freq, nominal, stall, idle, window_peak;
  for (const stats::ChipResult& c : r.chips) {
    for (const stats::PhaseResult& p : c.phases) {
      chip.push_back(c.chip);
      phase.push_back(p.name);
      managed.push_back(c.power_managed ? 1 : 0);
      cap.push_back(c.power_managed ? c.power_cap.si() : 0.0);
      avg.push_back(p.average_power().si());
      peak.push_back(p.power.peak_total.si());
      throttled.push_back(p.power.throttled_time.si());
      share.push_back(p.time.si() > 0 ? p.power.throttled_time / p.time : 0.0);
      freq.push_back(p.power.effective_frequency(p.time).si());
      nominal.push_back(c.nominal_clock.si());
      stall.push_back(p.power.stall_time.si());
      idle.push_back(c.idle_power.si());
      window_peak.push_back(peak_window_power(c, p.name).si());
    }
  }
  return Table{
      "/power",
      {text_column("chip", chip), text_column("phase", phase),
       int_column("power_managed", "1", managed), real_column("power_cap_W", "W", cap),
       real_column("avg_power_W", "W", avg), real_column("peak_power_W", "W", peak),
       real_column("throttled_s", "s", throttled), real_column("throttled_share", "1", share),
       real_column("effective_frequency_Hz", "Hz", freq),
       real_column("nominal_frequency_Hz", "Hz", nominal),
       real_column("gating_stall_s", "s", stall), real_column("idle_power_W", "W", idle),
       real_column("peak_window_power_W", "W", window_peak)},
      {{"description", std::string("power management per phase (docs/power.md); peaks are per "
                                   "op, power_cap_W is 0 without power management")}}};
}

Table iterations_table(const engine::StudyResult& r) {
  std::vector<std::string> chip, phase;
  std::vector<int64_t> index, batch, new_tokens, context;
  std::vector<double> weight, time, flops, hbm, energy;
  for (const stats::ChipResult& c : r.chips) {
    for (size_t i = 0; i < c.iterations.size(); ++i) {
      const stats::IterationResult& it = c.iterations[i];
      chip.push_back(c.chip);
      phase.push_back(it.phase);
      index.push_back(static_cast<int64_t>(i));
      batch.push_back(it.batch);
      new_tokens.push_back(it.new_tokens);
      context.push_back(it.context);
      weight.push_back(it.weight);
      time.push_back(it.time.si());
      flops.push_back(it.flops.si());
      hbm.push_back(it.hbm_bytes.si());
      energy.push_back(it.energy.total().si());
    }
  }
  return Table{
      "/iterations",
      {text_column("chip", chip), int_column("iteration", "1", index), text_column("phase", phase),
       int_column("batch", "1", batch), int_column("new_tokens", "1", new_tokens),
       int_column("context", "1", context), real_column("weight", "1", weight),
       real_column("time_s", "s", time), real_column("flops", "FLOP", flops),
       real_column("hbm_bytes", "B", hbm), real_column("energy_J", "J", energy)},
      {{"description", std::string("simulated iterations; a phase is the weighted sum "
                                   "of its iterations (weight = real iterations each "
                                   "stands for)")}}};
}

Table ops_table(const engine::StudyResult& r) {
  std::vector<std::string> chip, name, kind, math, bound;
  std::vector<int64_t> iteration, layer;
  std::vector<double> start, dur, flops, hbm, shared, compute, hbm_time, energy;
  for (const stats::ChipResult& c : r.chips) {
    for (const stats::OpResult& op : c.ops) {
      chip.push_back(c.chip);
      name.push_back(op.name);
      kind.push_back(op.kind);
      math.push_back(op.math);
      bound.push_back(stats::to_string(op.bound));
      iteration.push_back(op.iteration);
      layer.push_back(op.layer);
      start.push_back(op.start.si());
      dur.push_back(op.duration.si());
      flops.push_back(op.flops.si());
      hbm.push_back(op.hbm_bytes.si());
      shared.push_back(op.shared_bytes.si());
      compute.push_back(op.compute_time.si());
      hbm_time.push_back(op.hbm_time.si());
      energy.push_back(op.energy.total().si());
    }
  }
  return Table{
      "/ops",
      {text_column("chip", chip), int_column("iteration", "1", iteration),
       int_column("layer", "1", layer), text_column("op", name), text_column("kind", kind),
       text_column("math", math), real_column("start_s", "s", start),
       real_column("dur_s", "s", dur), real_column("flops", "FLOP", flops),
       real_column("hbm_bytes", "B", hbm), real_column("shared_sram_bytes", "B", shared),
       real_column("compute_bound_s", "s", compute), real_column("hbm_bound_s", "s", hbm_time),
       real_column("energy_J", "J", energy), text_column("bound", bound)},
      {}};
}

Table summary_table(const engine::StudyResult& r) {
  std::vector<std::string> chip, model;
  std::vector<double> e2e, prefill_tps, decode_tps, energy, ept, tdp, weights, kv;
  for (const stats::ChipResult& c : r.chips) {
    const stats::PhaseResult& pre = c.phases[0];
    const stats::PhaseResult& dec = c.phases[1];
    chip.push_back(c.chip);
    model.push_back(c.model);
    e2e.push_back(pre.total_time().si() + dec.total_time().si());
    prefill_tps.push_back(pre.tokens_per_second());
    decode_tps.push_back(dec.tokens_per_second());
    const double total_energy = pre.energy.total().si() + dec.energy.total().si();
    energy.push_back(total_energy);
    ept.push_back(dec.tokens > 0 ? total_energy / static_cast<double>(dec.tokens) : 0.0);
    tdp.push_back(c.tdp.si());
    weights.push_back(c.weight_bytes.si());
    kv.push_back(c.kv_bytes.si());
  }
  return Table{
      "/summary",
      {text_column("chip", chip), text_column("model", model),
       real_column("request_time_s", "s", e2e),
       real_column("prefill_tokens_per_s", "1/s", prefill_tps),
       real_column("decode_tokens_per_s", "1/s", decode_tps), real_column("energy_J", "J", energy),
       real_column("energy_per_output_token_J", "J", ept), real_column("tdp_W", "W", tdp),
       real_column("weight_bytes", "B", weights), real_column("kv_bytes", "B", kv)},
      {}};
}

}  // namespace

H5Document build_h5(const engine::StudyResult& r, const Provenance& p) {
  H5Document doc;
  doc.root_attributes = {{"schema", std::string("scoville.results")},
                         {"schema_version", int64_t{kSchemaVersion}},
                         {"tool_version", p.tool_version},
                         {"git_sha", p.git_sha},
                         {"seed", static_cast<int64_t>(r.study.seed)},
                         {"command_line", p.command_line},
                         {"created_utc", p.created_utc},
                         {"fidelity", engine::to_string(r.fidelity)}};
  doc.strings.push_back({"/config/resolved_yaml", study::to_yaml(r.study)});
  doc.strings.push_back({"/config/study_yaml", r.study.yaml_text});
  for (const std::string& file : r.input_files) {
    doc.strings.push_back({"/config/inputs/" + std::filesystem::path(file).filename().string(),
                           read_text_file(file)});
  }
  doc.tables = {summary_table(r), phases_table(r),     energy_table(r),
                power_table(r),   iterations_table(r), ops_table(r)};
  if (std::any_of(r.chips.begin(), r.chips.end(),
                  [](const stats::ChipResult& c) { return !c.power_windows.empty(); })) {
    doc.tables.push_back(power_windows_table(r.chips));
    doc.tables.push_back(clock_timeline_table(r.chips));
  }
  return doc;
}

}  // namespace scoville::output
