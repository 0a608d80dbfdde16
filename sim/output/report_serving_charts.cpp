#include "sim/output/report_serving_charts.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/base/pareto.hpp"
#include "sim/output/h5_reader.hpp"
#include "sim/output/h5_table_access.hpp"
#include "sim/output/report_metric_axes.hpp"
#include "sim/output/svg_chart.hpp"

namespace scoville::output {

namespace {

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Hover text of a row: the file, then every column of the row.
std::string row_tip(const std::string& name, const Table& table, size_t row) {
  std::string tip = name;
  for (const Column& c : table.columns) tip += "\n" + c.name + " = " + cell_text(c, row);
  return tip;
}

}  // namespace

const Table* serving_points(const H5Document& doc) {
  const bool scenario_sweep = attribute_text(doc, "point_kind") == "scenario";
  const Table* points = find_table(doc, scenario_sweep ? "/results" : "/points");
  if (!points || !find_column(*points, "intvty") || !find_column(*points, "tput_per_chip")) {
    return nullptr;
  }
  return points;
}

bool render_pareto(std::ostringstream& out, const std::vector<NamedDocument>& inputs) {
  XYChart chart;
  chart.id = "pareto";
  for (const NamedDocument& in : inputs) {
    const Table* points = serving_points(*in.doc);
    if (!points) continue;
    const Column* x = find_column(*points, "intvty");
    const Column* y = find_column(*points, "tput_per_chip");
    const Column* concurrency = find_column(*points, "concurrency");
    chart.x = metric_axis("intvty", x->units);
    chart.y = metric_axis("tput_per_chip", y->units);
    XYSeries s;
    s.name = base_name(in.name);
    for (size_t r = 0; r < rows_of(*points); ++r) {
      s.xs.push_back(numeric(*x, r));
      s.ys.push_back(numeric(*y, r));
      s.tips.push_back(row_tip(in.name, *points, r));
    }
    s.line = pareto_frontier(s.xs, s.ys);
    s.labels.assign(s.xs.size(), "");
    if (concurrency) {
      for (size_t i : s.line) s.labels[i] = "c=" + cell_text(*concurrency, i);
    }
    chart.series.push_back(std::move(s));
  }
  if (chart.series.empty()) return false;
  out << "<h2>Throughput against interactivity</h2>"
      << figure_html(
             "Each file's serving points; the line is its Pareto frontier (InferenceX's "
             "rule), frontier points labelled with their concurrency (c=). Hover a point "
             "for its row.",
             render_chart(chart));
  return true;
}

int render_latency_charts(std::ostringstream& out, const H5Document& doc, int& next_id) {
  const Table* points = serving_points(doc);
  if (!points || rows_of(*points) < 2) return 0;
  const Column* concurrency = find_column(*points, "concurrency");
  const Column* mapping = find_column(*points, "mapping");
  if (!concurrency) return 0;
  int drawn = 0;
  for (const char* metric : {"median_ttft_s", "median_tpot_s"}) {
    const Column* y = find_column(*points, metric);
    if (!y || is_text(*y)) continue;
    XYChart chart;
    chart.id = "chart" + std::to_string(next_id++);
    chart.x = metric_axis("concurrency", concurrency->units);
    chart.y = metric_axis(metric, y->units);
    std::map<std::string, size_t> series_of;
    for (size_t r = 0; r < rows_of(*points); ++r) {
      const std::string name = mapping ? cell_text(*mapping, r) : "all points";
      auto [it, added] = series_of.emplace(name, chart.series.size());
      if (added) chart.series.push_back(XYSeries{name, {}, {}, {}, {}, {}, true, false, {}});
      XYSeries& s = chart.series[it->second];
      s.xs.push_back(numeric(*concurrency, r));
      s.ys.push_back(numeric(*y, r));
      s.tips.push_back(row_tip(name, *points, r));
    }
    for (XYSeries& s : chart.series) {
      for (size_t i = 0; i < s.xs.size(); ++i) s.line.push_back(i);
      std::sort(s.line.begin(), s.line.end(),
                [&](size_t a, size_t b) { return s.xs[a] < s.xs[b]; });
    }
    out << figure_html(chart.y.title + " against concurrency, one line per mapping",
                       render_chart(chart));
    ++drawn;
  }
  return drawn;
}

}  // namespace scoville::output
