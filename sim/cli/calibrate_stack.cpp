#include "sim/cli/calibrate_stack.hpp"

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "sim/base/atomic_file.hpp"
#include "sim/base/error.hpp"
#include "sim/config/calibration_overlay.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/config/stack_calibration.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/output/progress.hpp"
#include "sim/validation/framework_stacks.hpp"
#include "sim/validation/stack_bounds.hpp"
#include "sim/validation/stack_fit.hpp"
#include "sim/validation/validation_run.hpp"

namespace scoville::cli {

namespace {

std::string g(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

std::string errors_text(const validation::RowErrors& e) {
  if (e.rows == 0) return "no rows";
  return g(e.throughput) + " % / " + g(e.intvty) + " % (" + std::to_string(e.rows) + " rows)";
}

// A system's part of one stack: the rows that ran the stack, its hardware on it.
struct Member {
  std::string system;  // arch/systems name
  std::unique_ptr<engine::ServingHardware> hw;
  serving::EfficiencyKnobs before;
};

}  // namespace

int calibrate_per_stack(const StackCalibrateArgs& args, std::ostream& out) {
  const config::DataPaths paths = config::DataPaths::from_environment();
  const validation::CalibrationRequest& rq = args.request;
  const engine::ServingFidelity level = rq.fidelity;
  const std::vector<validation::RowPlan> plans =
      validation::plan_rows(validation::read_measurements(rq.measurements));
  const std::vector<validation::FrameworkStackRule> rules =
      args.software == config::kSystemSoftware ? validation::shipped_framework_stacks(paths)
                                               : std::vector<validation::FrameworkStackRule>{};
  // Each row's stack as validate has it (its framework, else its system's own), then the
  // systems by stack. Every hardware first: at the op table each chip model is elaborated before
  // any row simulates.
  std::map<std::string, std::vector<validation::RowPlan>> plans_of_stack;
  std::map<std::string, std::vector<Member>> members;
  for (const std::string& system_arg : args.systems) {
    const std::string file = paths.resolve(system_arg, "arch/systems");
    const config::SystemConfig system = config::load_system(file, paths);
    const std::string name = std::filesystem::path(file).stem().string();
    const std::string chip = std::filesystem::path(config::require_chip(system)).stem().string();
    std::set<std::string> stacks;  // the stacks this system's rows ran
    for (const validation::RowPlan& p : plans) {
      if (p.system_file != name || !p.skipped.empty()) continue;
      const std::string stack =
          validation::row_stack(args.software, rules, p.framework, system.software).first;
      if (stack == config::kNoSoftware) continue;  // no stack: nothing to fit software on
      plans_of_stack[stack].push_back(p);
      stacks.insert(stack);
    }
    for (const std::string& stack : stacks) {
      const std::string request = stack == system.software ? config::kSystemSoftware : stack;
      Member m;
      m.system = name;
      m.hw = std::make_unique<engine::ServingHardware>(
          engine::resolve_hardware(chip, file, 8, request, false, level));
      if (level == engine::ServingFidelity::kOpTable) engine::use_op_table(*m.hw, args.op_cache);
      m.before = engine::resolve_hardware(chip, file, 8, request, true, level).efficiency;
      members[stack].push_back(std::move(m));
    }
  }
  if (members.empty()) {
    throw InputError(SourceLocation{rq.measurements, 0, 0}, "",
                     "no predictable row of the given systems runs a serving stack");
  }
  if (!args.output.empty() && members.size() != 1) {
    throw UsageError{"-o with --per-stack needs the systems' rows to run one stack (they run " +
                     std::to_string(members.size()) + ")"};
  }
  size_t unfitted = 0;
  for (auto& [stack, group] : members) {
    validation::StackFitRequest request;
    request.stack = stack;
    request.rows = rq;
    request.system_knobs = args.system_knobs;
    // The published ranges less what the stack file already charges (stack_bounds.hpp).
    request.rows.fit_options.bounds = validation::stack_knob_bounds(group.front().hw->software);
    output::ProgressReporter progress("calibrate --per-stack " + stack, 0, args.quiet);
    request.rows.on_evaluation = [&progress](size_t rows) {
      progress.step("fit evaluations, " + std::to_string(rows) + " rows each");
    };
    std::vector<validation::StackSystem> systems;
    for (const Member& m : group) systems.push_back({m.system, m.hw.get(), m.before});
    validation::StackFitResult fit;
    try {
      fit = validation::fit_stack(plans_of_stack.at(stack), systems, request);
    } catch (const InputError& e) {
      // A stack only some held-out rows ran (e.g. --rows naming none of its rows): reported,
      // the other stacks still fitted; refused when no stack has a row to fit.
      progress.finish();
      if (++unfitted == members.size()) throw;
      out << "# stack " << stack << ": not fitted (" << e.what() << ")\n";
      continue;
    }
    progress.finish();
    const serving::SoftwareOverheads& own = group.front().hw->software;
    const config::StackCalibration& c = fit.calibration;
    out << "# stack " << stack << " (" << engine::to_string(level) << "): " << fit.evaluations
        << " evaluations; knobs (beyond the stack file's own; total in brackets):\n";
    out << "#   per_op_overhead = " << g(c.per_op.si() * 1e6) << " us ["
        << g((c.per_op + own.per_op_launch).si() * 1e6) << " us per op]\n";
    out << "#   per_iteration_overhead = " << g(c.per_iteration.si() * 1e6) << " us ["
        << g((c.per_iteration + own.per_iteration).si() * 1e6) << " us per iteration]\n";
    out << "#   per_sequence_overhead = " << g(c.per_sequence.si() * 1e6) << " us ["
        << g((c.per_sequence + own.per_sequence).si() * 1e6) << " us per sequence]\n";
    out << "#   bounds: " << c.fit->bounds << "\n";
    out << "# MAPE throughput / interactivity, before (the overlays in effect) -> after:\n";
    for (const validation::StackSystemResult& s : fit.systems) {
      out << "#   " << s.name << " fitted " << errors_text(s.fitted_before) << " -> "
          << errors_text(s.fitted_after) << "; held out " << errors_text(s.held_before) << " -> "
          << errors_text(s.held_after) << "\n";
      for (const std::string& k : args.system_knobs) {
        out << "#     " << k << " = " << g(serving::get_knob(s.knobs, k)) << "\n";
      }
      for (const std::string& id : s.infeasible) out << "#     infeasible: " << id << "\n";
    }
    out << "#   all fitted " << errors_text(fit.fitted_before) << " -> "
        << errors_text(fit.fitted_after) << "; held out " << errors_text(fit.held_before) << " -> "
        << errors_text(fit.held_after) << "\n";
    if (args.dry_run) continue;
    config::StackCalibration written = c;
    const std::string shipped =
        config::overlay_path_for(paths.resolve(stack, "arch/software"), c.fidelity);
    written.file = args.output.empty() ? args.destination.path_for(shipped) : args.output;
    write_text_atomically(written.file, config::stack_calibration_yaml(written));
    out << "# wrote " << written.file
        << (written.file == shipped ? "" : args.destination.how_to_apply()) << "\n";
    if (args.system_knobs.empty()) continue;  // the systems' overlays stay as they are
    for (const validation::StackSystemResult& s : fit.systems) {
      const config::CalibrationOverlay o = validation::hardware_overlay(s, request, stack);
      const std::string own_shipped =
          config::overlay_path_for(paths.resolve(s.name, "arch/systems"), o.fidelity);
      const std::string target = args.destination.path_for(own_shipped);
      write_text_atomically(target, config::overlay_yaml(o));
      out << "# wrote " << target << (target == own_shipped ? "" : args.destination.how_to_apply())
          << "\n";
    }
  }
  return 0;
}

}  // namespace scoville::cli
