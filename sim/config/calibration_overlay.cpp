#include "sim/config/calibration_overlay.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "sim/base/yaml_reader.hpp"
#include "sim/config/overlay_text.hpp"

namespace scoville::config {

namespace {

using overlay_text::duration_text;
using overlay_text::g;
using overlay_text::id_list;
using overlay_text::list;
using overlay_text::quoted;

const char* kClasses[] = {"gemm", "attention", "other"};

void read_fractions(MapReader& knobs, const std::string& key,
                    std::array<double, serving::kOpClassCount>& out) {
  std::optional<MapReader> m = knobs.optional_map(key);
  if (!m) return;  // absent: peak (1) for every class
  for (size_t c = 0; c < out.size(); ++c) out[c] = m->number_or(kClasses[c], 1.0, 0.01, 1.0);
  m->finish();
}

// An inheriting overlay's `overrides:`: only the keys (and classes) given replace a value.
KnobOverrides read_overrides(MapReader& m) {
  KnobOverrides o;
  const std::pair<const char*, std::array<std::optional<double>, serving::kOpClassCount>*>
      groups[] = {{"compute_efficiency", &o.compute}, {"bandwidth_efficiency", &o.bandwidth}};
  for (const auto& [group, values] : groups) {
    std::optional<MapReader> fractions = m.optional_map(group);
    if (!fractions) continue;
    for (size_t c = 0; c < values->size(); ++c) {
      if (fractions->has(kClasses[c])) (*values)[c] = fractions->number(kClasses[c], 0.01, 1.0);
    }
    fractions->finish();
  }
  if (m.has("per_op_overhead")) {
    o.per_op = m.quantity<Duration>("per_op_overhead", Range::kNonNegative);
  }
  if (m.has("per_iteration_overhead")) {
    o.per_iteration = m.quantity<Duration>("per_iteration_overhead", Range::kNonNegative);
  }
  if (m.has("per_sequence_overhead")) {
    o.per_sequence = m.quantity<Duration>("per_sequence_overhead", Range::kNonNegative);
  }
  m.finish();
  return o;
}

// A system as its file is named (arch/systems/<name>.yaml, the stem `scoville calibrate` writes):
// `inherits:` makes a path of it, so a '/' (another folder) or a control character is refused.
bool is_system_name(const std::string& s) {
  auto allowed = [](unsigned char c) { return c != '/' && c >= 0x20 && c != 0x7f; };
  return !s.empty() && std::all_of(s.begin(), s.end(), allowed);
}

constexpr const char* kSystemNameExpected =
    "expected a system name as its file is named, without '/' or control characters, e.g. "
    "h200-hgx8";

CalibrationOverlay read_overlay(const YAML::Node& root, const std::string& file) {
  Diagnostics diagnostics;
  MapReader top(root, file, "", diagnostics);
  MapReader r = top.map("calibration");
  top.finish();
  CalibrationOverlay o;
  o.file = file;
  o.knobs_file = file;
  o.system = r.string("system");
  o.fidelity = r.string_or("fidelity", "roofline");
  if (!is_overlay_fidelity(o.fidelity)) {
    r.error("fidelity", "expected roofline or op-table, found '" + o.fidelity + "'");
  }
  o.inherits = r.string_or("inherits", "");
  o.why = r.string_or("why", "");
  if (!o.system.empty() && !is_system_name(o.system)) r.error("system", kSystemNameExpected);
  if (!o.inherits.empty() && !is_system_name(o.inherits)) r.error("inherits", kSystemNameExpected);
  std::optional<MapReader> knobs = r.optional_map("knobs");
  if (!o.inherits.empty() && knobs) {
    r.error("knobs", "an overlay either inherits another system's knobs or has its own, not both");
  }
  if (o.inherits.empty() && !knobs) {
    r.error("knobs", "expected fitted knobs (or `inherits: <system>`)");
  }
  if (std::optional<MapReader> overrides = r.optional_map("overrides")) {
    if (o.inherits.empty()) {
      r.error("overrides",
              "only an overlay that inherits knobs (`inherits: <system>`) overrides "
              "some of them; an overlay with its own knobs states them under knobs:");
    }
    o.overrides = read_overrides(*overrides);
  }
  if (knobs) {
    read_fractions(*knobs, "compute_efficiency", o.knobs.compute);
    read_fractions(*knobs, "bandwidth_efficiency", o.knobs.bandwidth);
    o.knobs.per_op =
        knobs->quantity_or<Duration>("per_op_overhead", Duration(0), Range::kNonNegative);
    o.knobs.per_iteration =
        knobs->quantity_or<Duration>("per_iteration_overhead", Duration(0), Range::kNonNegative);
    o.knobs.per_sequence =
        knobs->quantity_or<Duration>("per_sequence_overhead", Duration(0), Range::kNonNegative);
    knobs->finish();
  }
  if (std::optional<MapReader> f = r.optional_map("fit")) {
    if (!o.inherits.empty()) {
      r.error("fit", "an inheriting overlay was not fitted; fit: belongs with knobs:");
    }
    CalibrationFit fit;
    fit.measurements = f->string_or("measurements", "");
    fit.rows = id_list(*f, "rows");
    fit.held_out = id_list(*f, "held_out");
    fit.knobs = id_list(*f, "knobs");
    fit.objective = f->string_or("objective", "");
    fit.mape_before = f->number_or("mape_before", 0.0, 0.0, 1e9);
    fit.mape_after = f->number_or("mape_after", 0.0, 0.0, 1e9);
    fit.command = f->string_or("command", "");
    fit.software = f->string_or("software", "");
    f->finish();
    o.fit = fit;
  }
  r.finish();
  diagnostics.throw_if_any();
  return o;
}

}  // namespace

bool KnobOverrides::empty() const {
  auto none = [](const auto& a) {
    return std::none_of(a.begin(), a.end(), [](const auto& v) { return v.has_value(); });
  };
  return none(compute) && none(bandwidth) && !per_op && !per_iteration && !per_sequence;
}

void KnobOverrides::apply(serving::EfficiencyKnobs& knobs) const {
  for (size_t c = 0; c < compute.size(); ++c) {
    if (compute[c]) knobs.compute[c] = *compute[c];
    if (bandwidth[c]) knobs.bandwidth[c] = *bandwidth[c];
  }
  if (per_op) knobs.per_op = *per_op;
  if (per_iteration) knobs.per_iteration = *per_iteration;
  if (per_sequence) knobs.per_sequence = *per_sequence;
}

std::string CalibrationOverlay::describe() const {
  auto base = [](const std::string& p) { return std::filesystem::path(p).filename().string(); };
  const std::string name = base(file);
  if (inherits.empty()) return name;
  std::string out = name + " (knobs of " + base(knobs_file);
  if (!override_files.empty()) {
    out += ", overrides of";
    for (const std::string& f : override_files) out += " " + base(f);
  }
  return out + ")";
}

bool is_overlay_fidelity(const std::string& fidelity) {
  return fidelity == "roofline" || fidelity == "op-table";
}

std::string overlay_path_for(const std::string& system_file, const std::string& fidelity) {
  const std::filesystem::path p(system_file);
  const std::string infix = fidelity == "roofline" ? "" : "." + fidelity;
  return (p.parent_path() / (p.stem().string() + infix + ".calibration.yaml")).string();
}

CalibrationOverlay parse_overlay(const std::string& path) {
  return read_overlay(load_yaml_file(path), path);
}

CalibrationOverlay parse_overlay_string(const std::string& yaml, const std::string& display_name) {
  return read_overlay(load_yaml_string(yaml, display_name), display_name);
}

std::optional<CalibrationOverlay> find_overlay(const std::string& system_file,
                                               const std::string& fidelity) {
  const std::string path = overlay_path_for(system_file, fidelity);
  if (!std::filesystem::exists(path)) return std::nullopt;
  CalibrationOverlay o = load_overlay(path);
  overlay_text::require_fidelity(path, "calibration.fidelity", fidelity, o.fidelity);
  return o;
}

namespace {

// Follows `inherits:` up to the overlay with knobs of its own, then applies each overlay's
// overrides on the way back down (the nearest overlay's last). `chain` holds the files on the
// way up, to refuse a cycle.
CalibrationOverlay resolve_overlay(const std::string& path, std::vector<std::string>& chain) {
  CalibrationOverlay o = parse_overlay(path);
  if (o.inherits.empty()) return o;
  const std::string parent_path = overlay_path_for(
      (std::filesystem::path(path).parent_path() / (o.inherits + ".yaml")).string(), o.fidelity);
  if (!std::filesystem::exists(parent_path)) {
    throw InputError(SourceLocation{path, 0, 0}, "calibration.inherits",
                     "no overlay " + parent_path + " to inherit knobs from");
  }
  const std::string key = std::filesystem::weakly_canonical(parent_path).string();
  if (std::find(chain.begin(), chain.end(), key) != chain.end()) {
    throw InputError(SourceLocation{path, 0, 0}, "calibration.inherits",
                     "inherits in a cycle (through " + parent_path +
                         "); one overlay on the chain must hold knobs of its own");
  }
  chain.push_back(key);
  const CalibrationOverlay parent = resolve_overlay(parent_path, chain);
  if (parent.fidelity != o.fidelity) {
    throw InputError(SourceLocation{path, 0, 0}, "calibration.inherits",
                     "inherits knobs fitted at the " + parent.fidelity + " fidelity (" +
                         parent_path + ") into a " + o.fidelity + " overlay");
  }
  o.knobs = parent.knobs;
  o.knobs_file = parent.knobs_file;
  o.override_files = parent.override_files;
  if (!o.overrides.empty()) {
    o.overrides.apply(o.knobs);
    o.override_files.push_back(path);
  }
  return o;
}

}  // namespace

CalibrationOverlay load_overlay(const std::string& path) {
  if (!std::filesystem::exists(path)) {
    throw InputError(SourceLocation{path, 0, 0}, "calibration", "no such overlay file");
  }
  std::vector<std::string> chain{std::filesystem::weakly_canonical(path).string()};
  return resolve_overlay(path, chain);
}

std::string overlay_yaml(const CalibrationOverlay& o) {
  std::ostringstream y;
  y << "# Calibration overlay of " << o.system << ".yaml (written by `scoville calibrate`; see\n"
    << "# docs/calibration.md). Efficiency knobs of the " << o.fidelity
    << " serving model; the hardware\n"
    << "# numbers in the system and chip files are untouched. --no-calibration ignores this "
       "file.\n";
  y << "calibration:\n";
  y << "  system: " << quoted(o.system) << "  # the system file this overlay belongs to\n";
  y << "  fidelity: " << o.fidelity << "  # the fidelity its knobs were fitted at\n";
  if (!o.why.empty()) y << "  why: " << quoted(o.why) << "  # text\n";
  if (!o.inherits.empty()) {
    y << "  inherits: " << quoted(o.inherits) << "  # its knobs are used; none fitted here\n";
    if (!o.overrides.empty()) {
      y << "  overrides:  # [ASSUMPTION] values set by hand; docs/calibration.md gives sources\n";
      const std::pair<const char*, const std::array<std::optional<double>, serving::kOpClassCount>*>
          groups[] = {{"compute_efficiency", &o.overrides.compute},
                      {"bandwidth_efficiency", &o.overrides.bandwidth}};
      for (const auto& [group, values] : groups) {
        if (std::none_of(values->begin(), values->end(), [](auto v) { return v.has_value(); })) {
          continue;
        }
        y << "    " << group << ":\n";
        for (size_t c = 0; c < values->size(); ++c) {
          if ((*values)[c]) y << "      " << kClasses[c] << ": " << g(*(*values)[c]) << "\n";
        }
      }
      if (o.overrides.per_op) {
        y << "    per_op_overhead: " << duration_text(*o.overrides.per_op) << "\n";
      }
      if (o.overrides.per_iteration) {
        y << "    per_iteration_overhead: " << duration_text(*o.overrides.per_iteration) << "\n";
      }
      if (o.overrides.per_sequence) {
        y << "    per_sequence_overhead: " << duration_text(*o.overrides.per_sequence) << "\n";
      }
    }
    return y.str();
  }
  const std::string tag = o.fit ? "[MEAS] fitted by scoville calibrate" : "[ASSUMPTION]";
  auto fitted = [&](const std::string& knob) {
    if (!o.fit) return false;
    for (const std::string& k : o.fit->knobs) {
      const std::string group = knob.substr(0, knob.find('.'));
      if (k == knob || k == group + ".all") return true;
    }
    return false;
  };
  auto note = [&](const std::string& knob) {
    return fitted(knob) ? "  # " + tag : std::string("  # [ASSUMPTION] not fitted (default)");
  };
  y << "  knobs:\n";
  const std::pair<const char*, const std::array<double, serving::kOpClassCount>*> groups[] = {
      {"compute_efficiency", &o.knobs.compute}, {"bandwidth_efficiency", &o.knobs.bandwidth}};
  for (const auto& [group, values] : groups) {
    y << "    " << group << ":  # per op class: "
      << (o.fidelity == "roofline" ? "fraction of peak" : "the chip model's time over this")
      << "\n";
    for (size_t c = 0; c < values->size(); ++c) {
      y << "      " << kClasses[c] << ": " << g((*values)[c])
        << note(std::string(group) + "." + kClasses[c]) << "\n";
    }
  }
  y << "    per_op_overhead: " << duration_text(o.knobs.per_op) << note("per_op_overhead")
    << "; added per fused op\n";
  y << "    per_iteration_overhead: " << duration_text(o.knobs.per_iteration)
    << note("per_iteration_overhead") << "; added per iteration\n";
  // Written when set or fitted only: overlays from before the knob existed read back unchanged.
  if (o.knobs.per_sequence.si() != 0 || fitted("per_sequence_overhead")) {
    y << "    per_sequence_overhead: " << duration_text(o.knobs.per_sequence)
      << note("per_sequence_overhead") << "; added per sequence of an iteration\n";
  }
  if (o.fit) {
    const CalibrationFit& f = *o.fit;
    y << "  fit:\n";
    y << "    measurements: " << quoted(f.measurements) << "  # the CSV fitted to\n";
    y << "    rows: " << list(f.rows) << "  # ids of the rows fitted on\n";
    y << "    held_out: " << list(f.held_out) << "  # ids predictable but not fitted on\n";
    y << "    knobs: " << list(f.knobs) << "  # the knobs fitted; the others keep defaults\n";
    y << "    objective: " << quoted(f.objective) << "  # text\n";
    y << "    mape_before: " << g(f.mape_before) << "  # [MEAS] MAPE % over the rows "
      << (o.fidelity == "roofline" ? "at the raw peaks" : "without an overlay") << "\n";
    y << "    mape_after: " << g(f.mape_after)
      << "  # [MEAS] MAPE % over the rows with these knobs\n";
    y << "    command: " << quoted(f.command) << "  # how to fit again\n";
    if (!f.software.empty()) {
      y << "    software: " << quoted(f.software)
        << "  # the stack the rows were predicted with (arch/software)\n";
    }
  }
  return y.str();
}

}  // namespace scoville::config
