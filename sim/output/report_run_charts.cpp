#include "sim/output/report_run_charts.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/output/h5_table_access.hpp"
#include "sim/output/svg_chart.hpp"

namespace scoville::output {

namespace {

size_t index_of(std::vector<std::string>& names, const std::string& name) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return static_cast<size_t>(it - names.begin());
  names.push_back(name);
  return names.size() - 1;
}

// Adds `value` to the bar of (category, series), growing the chart as names appear.
void add(BarChart& chart, const std::string& category, const std::string& series, double value) {
  const size_t c = index_of(chart.categories, category);
  const size_t s = index_of(chart.series, series);
  chart.values.resize(chart.series.size());
  for (auto& row : chart.values) row.resize(chart.categories.size(), 0.0);
  if (std::isfinite(value)) chart.values[s][c] += value;
}

// Series in name order (stable colours whatever order the ops came in).
void sort_series(BarChart& chart) {
  std::vector<size_t> order(chart.series.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return chart.series[a] < chart.series[b]; });
  BarChart sorted = chart;
  for (size_t i = 0; i < order.size(); ++i) {
    sorted.series[i] = chart.series[order[i]];
    sorted.values[i] = chart.values[order[i]];
  }
  chart = sorted;
}

// Phase time split by what bounds each op, ops weighted by the real iterations their simulated
// iteration stands for (the same figure as tools/plot breakdown).
bool time_by_bound(const H5Document& doc, BarChart& chart) {
  const Table* ops = find_table(doc, "/ops");
  const Table* its = find_table(doc, "/iterations");
  if (!ops || !its) return false;
  const Column* it_chip = find_column(*its, "chip");
  const Column* it_index = find_column(*its, "iteration");
  const Column* it_phase = find_column(*its, "phase");
  const Column* it_weight = find_column(*its, "weight");
  const Column* op_chip = find_column(*ops, "chip");
  const Column* op_it = find_column(*ops, "iteration");
  const Column* op_dur = find_column(*ops, "dur_s");
  const Column* op_bound = find_column(*ops, "bound");
  if (!it_chip || !it_index || !it_phase || !it_weight || !op_chip || !op_it || !op_dur ||
      !op_bound) {
    return false;
  }
  std::map<std::pair<std::string, int64_t>, std::pair<std::string, double>> iteration;
  for (size_t r = 0; r < rows_of(*its); ++r) {
    iteration[{cell_text(*it_chip, r), static_cast<int64_t>(numeric(*it_index, r))}] = {
        cell_text(*it_phase, r), numeric(*it_weight, r)};
  }
  chart.category = {"chip and phase", ""};
  chart.value = {"phase time", op_dur->units.empty() ? "s" : op_dur->units};
  for (size_t r = 0; r < rows_of(*ops); ++r) {
    auto it = iteration.find({cell_text(*op_chip, r), static_cast<int64_t>(numeric(*op_it, r))});
    if (it == iteration.end()) continue;
    add(chart, cell_text(*op_chip, r) + " " + it->second.first, cell_text(*op_bound, r),
        numeric(*op_dur, r) * it->second.second);
  }
  sort_series(chart);
  return !chart.categories.empty();
}

// Energy by component per (chip,) phase: a chip run's /energy, a system run's /components.
bool energy_by_component(const H5Document& doc, BarChart& chart) {
  const Table* energy = find_table(doc, "/energy");
  const bool system = energy == nullptr;
  if (system) energy = find_table(doc, "/components");
  if (!energy) return false;
  const Column* chip = find_column(*energy, "chip");
  const Column* phase = find_column(*energy, "phase");
  const Column* component = find_column(*energy, "component");
  const Column* joules = find_column(*energy, "energy_J");
  if (!phase || !component || !joules || (!system && !chip)) return false;
  chart.category = {system ? "phase" : "chip and phase", ""};
  chart.value = {"energy", joules->units.empty() ? "J" : joules->units};
  for (size_t r = 0; r < rows_of(*energy); ++r) {
    const std::string category =
        system ? cell_text(*phase, r) : cell_text(*chip, r) + " " + cell_text(*phase, r);
    add(chart, category, cell_text(*component, r), numeric(*joules, r));
  }
  return !chart.categories.empty();
}

// A system run's time by component: each component's time is the slowest role's share of the
// phase, so they do not add up; drawn side by side, not stacked.
bool system_time_by_component(const H5Document& doc, BarChart& chart) {
  const Table* components = find_table(doc, "/components");
  if (!components) return false;
  const Column* phase = find_column(*components, "phase");
  const Column* component = find_column(*components, "component");
  const Column* time = find_column(*components, "time_s");
  if (!phase || !component || !time) return false;
  chart.stacked = false;
  chart.category = {"phase", ""};
  chart.value = {"time", time->units.empty() ? "s" : time->units};
  for (size_t r = 0; r < rows_of(*components); ++r) {
    if (!std::isfinite(numeric(*time, r))) continue;  // static power has no time
    add(chart, cell_text(*phase, r), cell_text(*component, r), numeric(*time, r));
  }
  return !chart.categories.empty();
}

}  // namespace

int render_run_charts(std::ostringstream& out, const H5Document& doc, int& next_id) {
  int drawn = 0;
  const auto draw = [&](BarChart& chart, const std::string& caption) {
    chart.id = "chart" + std::to_string(next_id++);
    out << figure_html(caption, render_chart(chart));
    ++drawn;
  };
  BarChart bound, energy, components;
  if (time_by_bound(doc, bound)) {
    draw(bound,
         "Phase time by bound: op time weighted by the real iterations each simulated "
         "iteration stands for");
  }
  if (system_time_by_component(doc, components)) {
    draw(components,
         "Phase time by component: the slowest role's time in each (side by side: "
         "they overlap, so they do not add up)");
  }
  if (energy_by_component(doc, energy)) draw(energy, "Phase energy by component");
  return drawn;
}

}  // namespace scoville::output
