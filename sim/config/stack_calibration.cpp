#include "sim/config/stack_calibration.hpp"

#include <filesystem>
#include <sstream>

#include "sim/base/yaml_reader.hpp"
#include "sim/config/calibration_overlay.hpp"
#include "sim/config/overlay_text.hpp"

namespace scoville::config {

namespace {

using overlay_text::duration_text;
using overlay_text::g;
using overlay_text::id_list;
using overlay_text::list;
using overlay_text::quoted;

StackCalibration read(const YAML::Node& root, const std::string& file) {
  Diagnostics diagnostics;
  MapReader top(root, file, "", diagnostics);
  MapReader r = top.map("stack_calibration");
  top.finish();
  StackCalibration c;
  c.file = file;
  c.stack = r.string("stack");
  c.fidelity = r.string_or("fidelity", "roofline");
  if (!is_overlay_fidelity(c.fidelity)) {
    r.error("fidelity", "expected roofline or op-table, found '" + c.fidelity + "'");
  }
  MapReader knobs = r.map("knobs");
  c.per_op = knobs.quantity_or<Duration>("per_op_overhead", Duration(0), Range::kNonNegative);
  c.per_iteration =
      knobs.quantity_or<Duration>("per_iteration_overhead", Duration(0), Range::kNonNegative);
  c.per_sequence =
      knobs.quantity_or<Duration>("per_sequence_overhead", Duration(0), Range::kNonNegative);
  knobs.finish();
  if (std::optional<MapReader> f = r.optional_map("fit")) {
    StackCalibrationFit fit;
    fit.measurements = f->string_or("measurements", "");
    fit.systems = id_list(*f, "systems", "[h200-hgx8, b200-hgx8]");
    fit.rows = id_list(*f, "rows");
    fit.held_out = id_list(*f, "held_out");
    fit.knobs = id_list(*f, "knobs", "[per_op_overhead, per_sequence_overhead]");
    fit.bounds = f->string_or("bounds", "");
    fit.objective = f->string_or("objective", "");
    fit.mape_before = f->number_or("mape_before", 0.0, 0.0, 1e9);
    fit.mape_after = f->number_or("mape_after", 0.0, 0.0, 1e9);
    fit.held_out_mape_before = f->number_or("held_out_mape_before", 0.0, 0.0, 1e9);
    fit.held_out_mape_after = f->number_or("held_out_mape_after", 0.0, 0.0, 1e9);
    fit.command = f->string_or("command", "");
    f->finish();
    c.fit = fit;
  }
  r.finish();
  diagnostics.throw_if_any();
  return c;
}

}  // namespace

void StackCalibration::apply(serving::EfficiencyKnobs& knobs) const {
  knobs.per_op = per_op;
  knobs.per_iteration = per_iteration;
  knobs.per_sequence = per_sequence;
}

std::vector<std::string> StackCalibration::apply_where_unset(
    serving::EfficiencyKnobs& knobs) const {
  std::vector<std::string> kept;
  const auto fill = [&kept](Duration& knob, Duration fitted, const char* name) {
    if (knob.si() != 0) {
      kept.push_back(name);
    } else {
      knob = fitted;
    }
  };
  fill(knobs.per_op, per_op, "per_op_overhead");
  fill(knobs.per_iteration, per_iteration, "per_iteration_overhead");
  fill(knobs.per_sequence, per_sequence, "per_sequence_overhead");
  return kept;
}

StackCalibration parse_stack_calibration(const std::string& path) {
  return read(load_yaml_file(path), path);
}

StackCalibration parse_stack_calibration_string(const std::string& yaml,
                                                const std::string& display_name) {
  return read(load_yaml_string(yaml, display_name), display_name);
}

std::optional<StackCalibration> find_stack_calibration(const std::string& software_file,
                                                       const std::string& fidelity) {
  const std::string path = overlay_path_for(software_file, fidelity);
  if (!std::filesystem::exists(path)) return std::nullopt;
  StackCalibration c = parse_stack_calibration(path);
  overlay_text::require_fidelity(path, "stack_calibration.fidelity", fidelity, c.fidelity);
  const std::string stem = std::filesystem::path(software_file).stem().string();
  if (c.stack != stem) {
    throw InputError(SourceLocation{path, 0, 0}, "stack_calibration.stack",
                     "expected " + stem + " (the stack file beside it), found " + c.stack);
  }
  return c;
}

std::string stack_calibration_yaml(const StackCalibration& c) {
  std::ostringstream y;
  y << "# Software knobs of the " << c.stack << " stack at the " << c.fidelity
    << " fidelity, shared by every\n"
    << "# system that runs it (written by `scoville calibrate --per-stack`; docs/calibration.md).\n"
    << "# They replace the overheads of a system's own overlay; --no-calibration ignores them.\n";
  y << "stack_calibration:\n";
  y << "  stack: " << quoted(c.stack) << "  # the arch/software file it belongs to\n";
  y << "  fidelity: " << c.fidelity << "  # the fidelity its knobs were fitted at\n";
  const std::string tag = c.fit ? "[MEAS] fitted by scoville calibrate --per-stack, within "
                                  "fit.bounds"
                                : "[ASSUMPTION]";
  y << "  knobs:  # beyond the stack file's own per_op_launch, per_iteration and per_sequence\n";
  y << "    per_op_overhead: " << duration_text(c.per_op) << "  # " << tag << "\n";
  y << "    per_iteration_overhead: " << duration_text(c.per_iteration) << "  # " << tag << "\n";
  y << "    per_sequence_overhead: " << duration_text(c.per_sequence) << "  # " << tag << "\n";
  if (c.fit) {
    const StackCalibrationFit& f = *c.fit;
    y << "  fit:\n";
    y << "    measurements: " << quoted(f.measurements) << "  # the CSV fitted to\n";
    y << "    systems: " << list(f.systems) << "  # the systems whose rows were fitted on\n";
    y << "    rows: " << list(f.rows) << "  # ids of the rows fitted on\n";
    y << "    held_out: " << list(f.held_out) << "  # ids of the stack's rows not fitted on\n";
    y << "    knobs: " << list(f.knobs) << "  # the knobs fitted; the others are 0\n";
    y << "    bounds: " << quoted(f.bounds) << "  # text\n";
    y << "    objective: " << quoted(f.objective) << "  # text\n";
    y << "    mape_before: " << g(f.mape_before)
      << "  # [MEAS] MAPE % over the fitted rows with the overlays in effect before\n";
    y << "    mape_after: " << g(f.mape_after) << "  # [MEAS] MAPE % over the fitted rows\n";
    y << "    held_out_mape_before: " << g(f.held_out_mape_before)
      << "  # [MEAS] MAPE % over the held-out rows before\n";
    y << "    held_out_mape_after: " << g(f.held_out_mape_after)
      << "  # [MEAS] MAPE % over the held-out rows\n";
    y << "    command: " << quoted(f.command) << "  # how to fit again\n";
  }
  return y.str();
}

}  // namespace scoville::config
