// `scoville calibrate`: fits a system's efficiency knobs (or, with --per-stack, each serving
// stack's software knobs over every system running it: calibrate_stack.hpp)
// (sim/serving/efficiency_knobs.hpp) to published measurements at one fidelity and writes them as
// that fidelity's overlay next to the system file (arch/systems/<name>.op-table.calibration.yaml by
// default, <name>.calibration.yaml at the roofline; sim/config/calibration_overlay.hpp). The
// hardware files are never edited. The fit starts from no overlay (the chip model's times, or the
// raw peaks) and minimises the squared log error of throughput per chip and interactivity over the
// chosen rows (reported as MAPE) (serving/knob_fit.hpp: deterministic coordinate descent, then
// Nelder-Mead). Each row's engine is built once and re-priced per knob set, so a fit costs
// simulations, not mappings.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "sim/base/atomic_file.hpp"
#include "sim/base/error.hpp"
#include "sim/cli/calibrate_stack.hpp"
#include "sim/cli/calibration_destination.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/cli/op_simulation_progress.hpp"
#include "sim/config/calibration_overlay.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/config/stack_calibration.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/engine/serving_engines.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/output/output_paths.hpp"
#include "sim/output/progress.hpp"
#include "sim/serving/knob_fit.hpp"
#include "sim/serving/serving_point.hpp"
#include "sim/validation/calibration_fit.hpp"
#include "sim/validation/measurement_rows.hpp"

namespace scoville::cli {

OptionSet calibrate_options() {
  OptionSet s("calibrate");
  s.synopsis("--system FILE|NAME... [options]",
             "fit a system's efficiency knobs to measured rows; write them as "
             "calibration/<name>[.op-table].calibration.yaml (--update-shipped: over the "
             "shipped overlay beside the system file)")
      .texts("--system", "FILE|NAME", "a system file to fit (arch/systems)")
      .text("--measurements", "FILE.csv",
            "the rows (default the shipped copy, "
            "workloads/measurements/published/measurements.csv)")
      .text("--rows", "all|half|ID,ID...",
            "rows to fit (default half: every other predictable row of the system in id order, "
            "the rest held out for validate)")
      .text("--fidelity", "op-table|roofline",
            "the fidelity the knobs are fitted at and belong to (default op-table: written as "
            "<name>.op-table.calibration.yaml; roofline: <name>.calibration.yaml)")
      .list("--knobs", "NAME,NAME...",
            "knobs to fit (default at op-table: per_op_overhead, per_iteration_overhead, the "
            "software the chip model does not see; at roofline: compute_efficiency.all, "
            "bandwidth_efficiency.all, per_iteration_overhead)")
      .flag("--no-op-cache", "op-table: neither read nor write the persistent op cache")
      .text("--software", "NAME|FILE|none",
            "the serving stack (arch/software; default each system file's own; none: hardware "
            "time alone)")
      .count("--prompts-per-client", "K", "requests per client while fitting (default 4)")
      .count("--sweeps", "N",
             "coordinate-descent passes (default 2; then a Nelder-Mead polish of up to 120 "
             "evaluations)")
      .flag("--per-stack",
            "fit one set of software knobs per serving stack over the rows of every --system "
            "running it (each row's stack as validate has it), inside the published ranges; "
            "write arch/software/<stack>[.op-table].calibration.yaml (docs/calibration.md)")
      .list("--system-knobs", "NAME,NAME...",
            "with --per-stack: hardware knobs each system keeps, fitted on its own rows and "
            "written as its overlay without overheads (default none at op-table; at roofline "
            "compute_efficiency.all, bandwidth_efficiency.all)")
      .flag("--quiet", "no progress line on a terminal")
      .text("-o,--output", "FILE",
            "the overlay (one --system only); with --per-stack the stack's calibration (one "
            "stack only)")
      .text("--output-dir", "DIR",
            "the folder the fitted files go to, named as the shipped ones (default calibration)")
      .flag("--update-shipped",
            "write over the shipped files instead: arch/systems/<name>[.op-table]"
            ".calibration.yaml, with --per-stack arch/software/<stack>[.op-table]"
            ".calibration.yaml")
      .flag("--dry-run", "fit and print, write nothing");
  return s;
}

namespace {

std::string g(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

// `path` relative to the data root when it lies inside it, else as given.
std::string recorded_path(const std::string& path, const config::DataPaths& paths) {
  std::error_code ec;
  const std::filesystem::path file = std::filesystem::weakly_canonical(path, ec);
  const std::filesystem::path root = std::filesystem::weakly_canonical(paths.root, ec);
  if (ec || root.empty()) return path;
  const std::filesystem::path rel = file.lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..") return path;
  return rel.generic_string();
}

}  // namespace

int calibrate_command(const Invocation& invocation, std::ostream& out) {
  const ParsedOptions p = calibrate_options().parse(invocation.args);
  std::string path = p.text_or("--measurements", "");
  const std::string rows_filter = p.text_or("--rows", "half");
  const std::string software = p.text_or("--software", config::kSystemSoftware);
  const std::string output = p.text_or("--output", "");
  const std::vector<std::string> systems = p.texts("--system");
  std::vector<std::string> knobs = p.list("--knobs");
  const std::string fidelity = p.text_or("--fidelity", "op-table");
  const int64_t prompts_per_client = p.count("--prompts-per-client").value_or(4);
  if (prompts_per_client < 1) throw UsageError{"--prompts-per-client: expected at least 1"};
  serving::FitOptions fit_options;
  if (const auto sweeps = p.count("--sweeps")) {  // checked before it narrows to int
    if (*sweeps < 1 || *sweeps > 1000) throw UsageError{"--sweeps: expected 1 to 1000"};
    fit_options.sweeps = static_cast<int>(*sweeps);
  }
  const bool dry_run = p.flag("--dry-run"), op_cache = !p.flag("--no-op-cache"),
             quiet = p.flag("--quiet");
  if (path.empty()) path = validation::shipped_measurements(config::DataPaths::from_environment());
  if (systems.empty()) throw UsageError{"--system is required (one or more system files)"};
  const bool per_stack = p.flag("--per-stack");
  std::vector<std::string> system_knobs = p.list("--system-knobs");
  if (!system_knobs.empty() && !per_stack) throw UsageError{"--system-knobs needs --per-stack"};
  if (!output.empty() && systems.size() != 1 && !per_stack) {
    throw UsageError{"-o needs exactly one --system"};
  }
  CalibrationDestination destination;
  destination.folder = p.text_or("--output-dir", destination.folder);
  destination.update_shipped = p.flag("--update-shipped");
  if (destination.update_shipped && (!output.empty() || p.given("--output-dir"))) {
    throw UsageError{"--update-shipped writes the shipped files; it takes no -o or --output-dir"};
  }
  if (!dry_run && output.empty()) destination.prepare();  // fail before the fit, not after
  output::RunFiles guard;
  guard.input("--measurements", path);
  for (const std::string& system : systems) guard.named_input("--system", system, "arch/systems");
  guard.output("-o", output);
  guard.check();
  const engine::ServingFidelity level = engine::parse_serving_fidelity(fidelity);
  if (level == engine::ServingFidelity::kCycle) {
    throw UsageError{"calibrate: expected --fidelity op-table or roofline"};
  }
  if (!op_cache && level != engine::ServingFidelity::kOpTable) {
    throw UsageError{"--no-op-cache needs --fidelity op-table"};
  }
  if (per_stack && knobs.empty()) {
    knobs = {"per_op_overhead", "per_iteration_overhead", "per_sequence_overhead"};
  }
  // At the op table the chip model prices the hardware (no fraction by default); the roofline
  // needs how far each system's kernels stay from its peaks.
  if (per_stack && system_knobs.empty() && level == engine::ServingFidelity::kRoofline) {
    system_knobs = {"compute_efficiency.all", "bandwidth_efficiency.all"};
  }
  if (knobs.empty()) {
    // At the op table the chip model prices the hardware: what is left to fit is the software
    // the model does not see. The roofline also needs how far kernels stay from the peaks.
    knobs = level == engine::ServingFidelity::kOpTable
                ? std::vector<std::string>{"per_op_overhead", "per_iteration_overhead"}
                : std::vector<std::string>{"compute_efficiency.all", "bandwidth_efficiency.all",
                                           "per_iteration_overhead"};
  }
  for (const std::string& k : knobs) {
    try {
      serving::knob_spec(k);
    } catch (const std::invalid_argument& e) {
      throw UsageError{std::string("--knobs: ") + e.what()};
    }
    if (per_stack && serving::knob_spec(k).unit != "s") {
      throw UsageError{"--knobs: with --per-stack the shared knobs are software time (" + k +
                       " is a hardware fraction: give it to --system-knobs)"};
    }
  }
  for (const std::string& k : system_knobs) {
    try {
      if (serving::knob_spec(k).unit == "s") {
        throw UsageError{"--system-knobs: " + k +
                         " is software time, shared by the stack (give it to --knobs)"};
      }
    } catch (const std::invalid_argument& e) {
      throw UsageError{std::string("--system-knobs: ") + e.what()};
    }
  }
  std::set<std::string> wanted_ids;
  if (rows_filter != "all" && rows_filter != "half") {
    std::string item;
    for (char c : rows_filter + ",") {
      if (c == ',') {
        if (item.empty()) throw UsageError{"--rows: expected all, half or a list of row ids"};
        wanted_ids.insert(item);
        item.clear();
      } else {
        item += c;
      }
    }
  }
  // The CSV as the written files record it: relative to the data root when it lies under it,
  // so that a shipped file names no machine's folder.
  const std::string recorded = recorded_path(path, config::DataPaths::from_environment());
  std::string command = "scoville calibrate";
  for (const std::string& arg : invocation.args) command += " " + arg;

  if (per_stack) {
    StackCalibrateArgs a;
    a.systems = systems;
    a.software = software;
    a.system_knobs = system_knobs;
    a.request.measurements = path;
    a.request.recorded_measurements = recorded;
    a.request.rows = rows_filter;
    a.request.wanted_ids = wanted_ids;
    a.request.knobs = knobs;
    a.request.prompts_per_client = prompts_per_client;
    a.request.fit_options = fit_options;
    a.request.fidelity = level;
    a.request.command = command;
    a.op_cache = op_cache;
    a.quiet = quiet;
    a.dry_run = dry_run;
    a.output = output;
    a.destination = destination;
    return calibrate_per_stack(a, out);
  }
  const config::DataPaths paths = config::DataPaths::from_environment();
  const std::vector<validation::RowPlan> plans =
      validation::plan_rows(validation::read_measurements(path));
  // Every system's hardware first: at the op table each chip model is elaborated before any
  // row simulates (SystemC elaborates once per process). The fit starts from no overlay.
  std::vector<engine::ServingHardware> hardware;
  for (const std::string& system_arg : systems) {
    const std::string file = paths.resolve(system_arg, "arch/systems");
    const config::SystemConfig system = config::load_system(file, paths);
    const std::string chip = std::filesystem::path(config::require_chip(system)).stem().string();
    hardware.push_back(engine::resolve_hardware(chip, file, 8, software, false, level));
    if (level == engine::ServingFidelity::kOpTable) engine::use_op_table(hardware.back(), op_cache);
  }
  for (size_t system_index = 0; system_index < systems.size(); ++system_index) {
    const std::string file = paths.resolve(systems[system_index], "arch/systems");
    const std::string system_name = std::filesystem::path(file).stem().string();
    const engine::ServingHardware& hw = hardware[system_index];
    validation::CalibrationRequest request;
    request.measurements = path;
    request.recorded_measurements = recorded;
    request.rows = rows_filter;
    request.wanted_ids = wanted_ids;
    request.knobs = knobs;
    request.prompts_per_client = prompts_per_client;
    request.fit_options = fit_options;
    request.fidelity = level;
    request.command = command;
    // The fit's evaluations (each simulates every chosen row) on a terminal: open-ended.
    output::ProgressReporter progress("calibrate " + system_name, 0, quiet);
    const PointActivity activity(progress);
    request.on_evaluation = [&progress](size_t rows) {
      progress.step("fit evaluations, " + std::to_string(rows) + " rows each");
    };
    validation::SystemCalibration calibrated =
        validation::calibrate_system(plans, system_name, hw, request);
    progress.finish();
    const serving::FitResult& fit = calibrated.fit;
    const std::vector<std::string>& held_out = calibrated.held_out;
    config::CalibrationOverlay& overlay = calibrated.overlay;
    const config::CalibrationFit& f = *overlay.fit;
    const std::vector<std::string>& infeasible = calibrated.infeasible;
    const std::string shipped = config::overlay_path_for(file, overlay.fidelity);
    const std::string target = !output.empty() ? output
                               : dry_run       ? shipped
                                               : destination.path_for(shipped);
    overlay.file = target;
    out << "# " << system_name << " (stack " << engine::software_label(hw) << "): fitted on rows";
    for (const std::string& id : f.rows) out << " " << id;
    out << " (held out:";
    for (const std::string& id : held_out) out << " " << id;
    out << "); MAPE " << g(f.mape_before) << "% -> " << g(f.mape_after) << "% (fit objective "
        << g(fit.before) << " -> " << g(fit.after) << " in " << fit.evaluations
        << " evaluations)\n";
    for (const std::string& id : infeasible) out << "#   not fitted, infeasible: " << id << "\n";
    if (const std::string ops = engine::op_table_report(hw); !ops.empty())
      out << "#   " << ops << "\n";
    for (const std::string& k : knobs) {
      const serving::KnobSpec& spec = serving::knob_spec(k);
      out << "#   " << k << " = " << g(serving::get_knob(fit.knobs, k))
          << (spec.unit.empty() ? "" : " ") << spec.unit << "  (" << spec.why << ")\n";
    }
    // A stack calibration replaces a system overlay's overheads wherever its stack runs
    // (engine::apply_stack_calibration): software time belongs to the stack. Say so when this
    // fit's overheads would be replaced.
    const bool fits_software = std::any_of(knobs.begin(), knobs.end(), [](const std::string& k) {
      return k == "per_op_overhead" || k == "per_iteration_overhead" ||
             k == "per_sequence_overhead";
    });
    if (fits_software && !hw.software_file.empty()) {
      if (const auto stack = config::find_stack_calibration(hw.software_file, overlay.fidelity)) {
        out << "# note: " << stack->file << " (the " << engine::software_label(hw)
            << " stack's fitted software knobs) replaces this overlay's overheads wherever the "
               "stack runs (docs/calibration.md, \"Per-stack fit\"): fit them with --per-stack, "
               "or move that file away for these to apply\n";
      }
    }
    if (dry_run) continue;
    write_text_atomically(target, config::overlay_yaml(overlay));
    out << "# wrote " << target << (target == shipped ? "" : destination.how_to_apply()) << "\n";
  }
  return 0;
}

}  // namespace scoville::cli
