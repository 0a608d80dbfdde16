#include "sim/validation/stack_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/base/error.hpp"

namespace scoville::validation {

namespace {

// `hardware`'s fractions with `software`'s overheads: a system's knobs during the stack fit.
serving::EfficiencyKnobs with_software(serving::EfficiencyKnobs hardware,
                                       const serving::EfficiencyKnobs& software) {
  hardware.per_op = software.per_op;
  hardware.per_iteration = software.per_iteration;
  hardware.per_sequence = software.per_sequence;
  return hardware;
}

// Appends `more` to `all` (the rows of several systems pooled into one objective).
template <typename T>
void append(std::vector<T>& all, const std::vector<T>& more) {
  all.insert(all.end(), more.begin(), more.end());
}

}  // namespace

RowErrors row_errors(const std::vector<RowPlan>& plans, const std::vector<RowPrediction>& pred) {
  RowErrors e;
  int intvty_terms = 0;
  int throughput_terms = 0;
  for (size_t i = 0; i < plans.size() && i < pred.size(); ++i) {
    if (plans[i].published) {
      e.throughput += std::fabs(signed_error(pred[i].throughput, *plans[i].published));
      ++throughput_terms;
    }
    if (plans[i].published_intvty) {
      e.intvty += std::fabs(signed_error(pred[i].intvty, *plans[i].published_intvty));
      ++intvty_terms;
    }
    ++e.rows;
  }
  if (throughput_terms > 0) e.throughput /= throughput_terms;
  if (intvty_terms > 0) e.intvty /= intvty_terms;
  e.combined = plans.empty() ? 0 : combined_mape(plans, pred);
  return e;
}

StackFitResult fit_stack(const std::vector<RowPlan>& plans, const std::vector<StackSystem>& systems,
                         const StackFitRequest& request) {
  const CalibrationRequest& rq = request.rows;
  std::vector<SystemRows> rows;
  size_t fitted_rows = 0;
  for (const StackSystem& s : systems) {
    rows.push_back(system_rows(plans, s.name, *s.hw, rq, true));
    fitted_rows += rows.back().fitted.plans.size();
  }
  if (fitted_rows == 0) {
    throw InputError(
        SourceLocation{rq.measurements, 0, 0}, "",
        "no predictable row of the " + request.stack + " stack to fit (rows '" + rq.rows + "')");
  }
  StackFitResult result;
  // One joint search: each system's hardware knobs (set i) and the shared software knobs (the
  // last set), which start at zero (the stack file's own values alone). Hardware knobs start
  // where each system's hardware was resolved (no overlay).
  std::vector<serving::EfficiencyKnobs> start;
  for (const StackSystem& s : systems) start.push_back(s.hw->efficiency);
  const size_t shared_set = systems.size();
  start.emplace_back();
  std::vector<serving::KnobSlot> slots;
  for (size_t i = 0; i < systems.size(); ++i) {
    if (rows[i].fitted.plans.empty()) continue;  // nothing to fit its hardware on
    for (const std::string& k : request.system_knobs) slots.push_back({k, i});
  }
  for (const std::string& k : rq.knobs) slots.push_back({k, shared_set});
  auto pooled_error = [&](const std::vector<serving::EfficiencyKnobs>& sets) {
    std::vector<RowPlan> all;
    std::vector<RowPrediction> pred;
    for (size_t i = 0; i < rows.size(); ++i) {
      append(all, rows[i].fitted.plans);
      append(pred, rows[i].fitted.run(with_software(sets[i], sets[shared_set])));
    }
    if (rq.on_evaluation) rq.on_evaluation(all.size());
    return combined_log_error(all, pred);
  };
  const serving::JointFitResult fit =
      serving::fit_knob_sets(slots, start, pooled_error, rq.fit_options);
  result.evaluations = fit.evaluations;
  const std::vector<serving::EfficiencyKnobs>& hardware = fit.knobs;
  const serving::EfficiencyKnobs& shared = fit.knobs[shared_set];

  std::vector<RowPlan> fit_plans, held_plans;
  std::vector<RowPrediction> fit_before, fit_after, held_before, held_after;
  for (size_t i = 0; i < rows.size(); ++i) {
    StackSystemResult s;
    s.name = systems[i].name;
    s.knobs = with_software(hardware[i], shared);
    for (const RowPlan& p : rows[i].fitted.plans) s.rows.push_back(p.id);
    s.held_out = rows[i].held_out_ids;
    append(s.infeasible, rows[i].fitted.infeasible);
    append(s.infeasible, rows[i].held_out.infeasible);
    const std::vector<RowPrediction> fb = rows[i].fitted.run(systems[i].before),
                                     fa = rows[i].fitted.run(s.knobs),
                                     hb = rows[i].held_out.run(systems[i].before),
                                     ha = rows[i].held_out.run(s.knobs);
    s.fitted_before = row_errors(rows[i].fitted.plans, fb);
    s.fitted_after = row_errors(rows[i].fitted.plans, fa);
    s.held_before = row_errors(rows[i].held_out.plans, hb);
    s.held_after = row_errors(rows[i].held_out.plans, ha);
    append(fit_plans, rows[i].fitted.plans);
    append(held_plans, rows[i].held_out.plans);
    append(fit_before, fb);
    append(fit_after, fa);
    append(held_before, hb);
    append(held_after, ha);
    result.systems.push_back(s);
  }
  result.fitted_before = row_errors(fit_plans, fit_before);
  result.fitted_after = row_errors(fit_plans, fit_after);
  result.held_before = row_errors(held_plans, held_before);
  result.held_after = row_errors(held_plans, held_after);

  config::StackCalibration& c = result.calibration;
  c.stack = request.stack;
  c.fidelity = engine::overlay_fidelity(rq.fidelity);
  c.per_op = shared.per_op;
  c.per_iteration = shared.per_iteration;
  c.per_sequence = shared.per_sequence;
  config::StackCalibrationFit f;
  f.measurements = rq.recorded();
  for (const StackSystemResult& s : result.systems) {
    f.systems.push_back(s.name);
    append(f.rows, s.rows);
    append(f.held_out, s.held_out);
  }
  f.knobs = rq.knobs;
  std::string bounds;
  for (const std::string& k : rq.knobs) {
    const serving::KnobSpec& spec = rq.fit_options.spec(k);
    char b[128];
    std::snprintf(b, sizeof b, "%s%s in [%.3g, %.3g] s", bounds.empty() ? "" : ", ", k.c_str(),
                  spec.lo, spec.hi);
    bounds += b;
  }
  f.bounds = bounds;
  f.objective =
      "least squares of ln(predicted / published) of throughput per chip and interactivity over "
      "the rows of every system, pooled" +
      std::string(request.system_knobs.empty()
                      ? ""
                      : "; each system's hardware knobs fitted jointly with them") +
      "; prompts per client " + std::to_string(rq.prompts_per_client) + "; " +
      engine::to_string(rq.fidelity) + " fidelity";
  f.mape_before = result.fitted_before.combined;
  f.mape_after = result.fitted_after.combined;
  f.held_out_mape_before = result.held_before.combined;
  f.held_out_mape_after = result.held_after.combined;
  f.command = rq.command;
  c.fit = f;
  return result;
}

config::CalibrationOverlay hardware_overlay(const StackSystemResult& system,
                                            const StackFitRequest& request,
                                            const std::string& software) {
  config::CalibrationOverlay o;
  o.system = system.name;
  o.fidelity = engine::overlay_fidelity(request.rows.fidelity);
  o.knobs = with_software(system.knobs, serving::EfficiencyKnobs{});
  o.why = "hardware knobs of the per-stack fit of " + request.stack + "; its software knobs are " +
          "in arch/software/" + request.stack + " calibration";
  config::CalibrationFit f;
  f.measurements = request.rows.recorded();
  f.rows = system.rows;
  f.held_out = system.held_out;
  f.knobs = request.system_knobs;
  f.objective =
      "per-stack fit (calibrate --per-stack): these knobs on the system's rows, the "
      "stack's software knobs over every system's";
  f.mape_before = system.fitted_before.combined;
  f.mape_after = system.fitted_after.combined;
  f.command = request.rows.command;
  f.software = software;
  o.fit = f;
  return o;
}

}  // namespace scoville::validation
