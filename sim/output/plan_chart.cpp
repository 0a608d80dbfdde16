#include "sim/output/plan_chart.hpp"

#include <algorithm>
#include <vector>

#include "sim/output/h5_reader.hpp"
#include "sim/output/h5_table_access.hpp"
#include "sim/output/report_metric_axes.hpp"
#include "sim/output/svg_chart.hpp"

namespace scoville::output {

namespace {

struct PlanColumns {
  const Column *intvty, *goodput, *meets, *pareto, *mapping, *load, *max_batch;
};

// One chart of a goodput column against interactivity.
XYChart goodput_chart(const Table& plan, const PlanColumns& c, const Column& goodput,
                      const std::string& id) {
  XYChart chart;
  chart.id = id;
  chart.x = metric_axis("intvty", c.intvty->units);
  chart.y = metric_axis(goodput.name, goodput.units);
  XYSeries met, missed, frontier;
  met.name = "meets the limits";
  missed.name = "misses them";
  frontier.name = "Pareto frontier";
  frontier.markers = false;
  std::vector<std::pair<double, double>> front;
  for (size_t r = 0; r < rows_of(plan); ++r) {
    const double x = numeric(*c.intvty, r), y = numeric(goodput, r);
    const std::string tip = cell_text(*c.mapping, r) + " max_batch " + cell_text(*c.max_batch, r) +
                            " load " + cell_text(*c.load, r);
    XYSeries& s = numeric(*c.meets, r) != 0 ? met : missed;
    s.xs.push_back(x);
    s.ys.push_back(y);
    s.tips.push_back(tip);
    if (numeric(*c.pareto, r) != 0) front.emplace_back(x, y);
  }
  std::sort(front.begin(), front.end());
  for (const auto& [x, y] : front) {
    frontier.line.push_back(frontier.xs.size());
    frontier.xs.push_back(x);
    frontier.ys.push_back(y);
  }
  for (XYSeries* s : {&met, &missed, &frontier}) {
    if (!s->xs.empty()) chart.series.push_back(*s);
  }
  return chart;
}

}  // namespace

bool render_plan_chart(std::ostringstream& out, const H5Document& doc, const std::string& name) {
  const Table* plan = find_table(doc, "/plan");
  if (!plan || rows_of(*plan) == 0) return false;
  const PlanColumns c{find_column(*plan, "intvty"),   find_column(*plan, "goodput_per_chip"),
                      find_column(*plan, "meets"),    find_column(*plan, "pareto"),
                      find_column(*plan, "mapping"),  find_column(*plan, "load"),
                      find_column(*plan, "max_batch")};
  const Column* per_kw = find_column(*plan, "goodput_per_kw_tdp");
  if (!c.intvty || !c.goodput || !c.meets || !c.pareto || !c.mapping || !c.load || !c.max_batch ||
      !per_kw) {
    return false;
  }
  out << "<h2>Plan: goodput against interactivity</h2>\n";
  out << figure_html(name +
                         ": goodput per chip against interactivity (the Pareto frontier the "
                         "search marked as a line)",
                     render_chart(goodput_chart(*plan, c, *c.goodput, "plan")));
  out << figure_html(name + ": goodput per kW of chip TDP against interactivity",
                     render_chart(goodput_chart(*plan, c, *per_kw, "plan-per-kw")));
  return true;
}

}  // namespace scoville::output
