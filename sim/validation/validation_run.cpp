#include "sim/validation/validation_run.hpp"

#include <cmath>
#include <set>
#include <utility>

#include "sim/base/error.hpp"
#include "sim/config/calibration_overlay.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/validation/concurrency_sweep.hpp"

namespace scoville::validation {

void Errors::add(const Outcome& o) {
  if (o.plan.published) {
    tput_sum += std::fabs(signed_error(o.predicted.throughput, *o.plan.published));
    ++tput_n;
  }
  if (o.plan.published_intvty) {
    intvty_sum += std::fabs(signed_error(o.predicted.intvty, *o.plan.published_intvty));
    ++intvty_n;
  }
}

std::vector<Outcome> validate_rows(const std::vector<RowPlan>& plans,
                                   const ValidationSettings& settings) {
  const config::DataPaths paths = config::DataPaths::from_environment();
  const engine::ServingFidelity level = settings.fidelity;
  const bool calibration = settings.calibration;
  // By system file and stack: a system whose rows ran on two stacks is resolved twice.
  std::map<std::pair<std::string, std::string>, engine::ServingHardware> hardware;
  std::map<std::string, std::set<std::string>> fitted;  // row ids an overlay was fitted on
  std::map<std::string, std::string> system_stacks;     // system file -> its own stack's name
  // Row id -> (the stack as resolve_hardware is asked for it, the stack's source).
  std::map<std::string, std::pair<std::string, std::string>> stacks;
  const std::vector<FrameworkStackRule> rules = settings.software == config::kSystemSoftware
                                                    ? shipped_framework_stacks(paths)
                                                    : std::vector<FrameworkStackRule>{};
  std::vector<Outcome> outcomes;
  // Every system and its overlay first, outside the rows' try: a broken file stops the run
  // (exit code 2) instead of turning every row into "infeasible". At the op table, every
  // system's chip model is elaborated here, before any row simulates.
  for (const RowPlan& plan : plans) {
    if (!plan.skipped.empty()) continue;
    const std::string file = paths.resolve(plan.system_file, "arch/systems");
    if (system_stacks.count(plan.system_file) == 0) {
      system_stacks[plan.system_file] = config::load_system(file, paths).software;
    }
    const auto stack =
        row_stack(settings.software, rules, plan.framework, system_stacks[plan.system_file]);
    // The system's own stack is asked for as such, so its hardware is resolved once.
    const bool own = stack.second == "system" || (stack.second == "framework" &&
                                                  stack.first == system_stacks[plan.system_file]);
    const std::string request = own ? std::string(config::kSystemSoftware) : stack.first;
    stacks[plan.id] = {request, stack.second};
    const auto key = std::make_pair(plan.system_file, request);
    if (hardware.count(key) != 0) continue;
    engine::ServingHardware hw =
        engine::resolve_hardware(plan.chip, file, 8, request, calibration, level);
    if (level == engine::ServingFidelity::kOpTable) engine::use_op_table(hw, settings.op_cache);
    if (calibration) {
      if (const auto overlay = config::find_overlay(file, engine::overlay_fidelity(level))) {
        if (overlay->fit) {
          fitted[plan.system_file].insert(overlay->fit->rows.begin(), overlay->fit->rows.end());
        }
      }
    }
    // The rows the stack's software knobs were fitted on count as fitted too.
    if (hw.stack_calibration && hw.stack_calibration->fit) {
      const std::vector<std::string>& ids = hw.stack_calibration->fit->rows;
      fitted[plan.system_file].insert(ids.begin(), ids.end());
    }
    hardware.emplace(key, std::move(hw));
  }
  for (const RowPlan& plan : plans) {
    Outcome o;
    o.plan = plan;
    if (o.plan.skipped.empty()) {
      const auto& [request, source] = stacks.at(plan.id);
      const engine::ServingHardware& hw = hardware.at({plan.system_file, request});
      o.stack = engine::software_label(hw);
      o.stack_source = source;
      try {
        o.calibration = hw.calibration;
        if (plan.scenario == RowScenario::kPoint) {
          RowSimulator sim(plan, hw, settings.prompts_per_client);
          o.predicted = sim.run(hw.efficiency);
        } else {  // the best point of a concurrency sweep: its replica and concurrency as chosen
          SweptRow swept = predict_swept_row(plan, hw, settings.prompts_per_client);
          o.plan = std::move(swept.plan);
          o.predicted = swept.predicted;
          o.sweep = std::move(swept.points);
        }
        if (fitted[plan.system_file].count(plan.id)) {
          o.set = "fit";
        } else if (calibration && !hw.calibration.empty()) {
          o.set = "held-out";
        }
      } catch (const InputError& e) {
        o.plan.skipped = std::string("infeasible: ") + e.what();
      }
    }
    outcomes.push_back(o);
    if (settings.on_row) settings.on_row(plan);
  }
  return outcomes;
}

std::pair<std::string, std::string> row_stack(const std::string& requested,
                                              const std::vector<FrameworkStackRule>& rules,
                                              const std::string& framework,
                                              const std::string& system_stack) {
  if (requested != config::kSystemSoftware) return {requested, "--software"};
  const std::string mapped = framework_stack(rules, framework, system_stack);
  if (!mapped.empty()) return {mapped, "framework"};
  return {system_stack.empty() ? std::string(config::kNoSoftware) : system_stack, "system"};
}

// Summaries: by system, by model, by stack, and by fit set, each over every predicted row.
std::vector<std::pair<std::string, std::map<std::string, Errors>>> summaries(
    const std::vector<Outcome>& outcomes) {
  std::map<std::string, Errors> by_system, by_model, by_stack, by_set, all;
  for (const Outcome& o : outcomes) {
    if (!o.plan.skipped.empty()) continue;
    by_system[o.plan.system_file].add(o);
    by_model[o.plan.model].add(o);
    by_stack[o.stack].add(o);
    by_set[o.set.empty() ? "uncalibrated" : o.set].add(o);
    all["all"].add(o);
  }
  return {{"system", by_system},
          {"model", by_model},
          {"stack", by_stack},
          {"set", by_set},
          {"all", all}};
}

}  // namespace scoville::validation
