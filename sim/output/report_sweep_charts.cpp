#include "sim/output/report_sweep_charts.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "sim/output/h5_reader.hpp"
#include "sim/output/h5_table_access.hpp"
#include "sim/output/report_metric_axes.hpp"
#include "sim/output/svg_chart.hpp"

namespace scoville::output {

namespace {

// Columns of the index that are not sweep axes (sweep_index.cpp writes the axes between them).
bool is_axis(const Column& c) {
  for (const char* fixed : {"point_id", "index", "status", "error", "path"}) {
    if (c.name == fixed) return false;
  }
  return true;
}

size_t distinct_values(const Column& c, size_t rows) {
  std::set<std::string> seen;
  for (size_t r = 0; r < rows; ++r) seen.insert(cell_text(c, r));
  return seen.size();
}

}  // namespace

int render_sweep_charts(std::ostringstream& out, const H5Document& doc, int& next_id) {
  if (attribute_text(doc, "file_kind") != "sweep" ||
      attribute_text(doc, "point_kind") == "scenario") {
    return 0;
  }
  const Table* index = find_table(doc, "/points");
  const Table* results = find_table(doc, "/results");
  if (!index || !results) return 0;
  const Column* id = find_column(*index, "point_id");
  const Column* result_id = find_column(*results, "point_id");
  const Column* chip = find_column(*results, "chip");
  if (!id || !result_id) return 0;
  const size_t points = rows_of(*index);
  std::vector<const Column*> axes;
  const Column* x_axis = nullptr;
  for (const Column& c : index->columns) {
    if (!is_axis(c)) continue;
    if (!x_axis && !is_text(c) && distinct_values(c, points) > 1) {
      x_axis = &c;
    } else {
      axes.push_back(&c);
    }
  }
  std::map<std::string, size_t> row_of_point;
  for (size_t r = 0; r < points; ++r) row_of_point[cell_text(*id, r)] = r;
  int drawn = 0;
  for (const char* metric :
       {"decode_tokens_per_s", "energy_per_output_token_J", "request_time_s"}) {
    const Column* y = find_column(*results, metric);
    if (!y || is_text(*y)) continue;
    // Series: the values of the other axes (and the chip of a multi-chip study) of each row.
    std::map<std::string, std::vector<std::pair<size_t, double>>> series;  // name -> (point, y)
    for (size_t r = 0; r < rows_of(*results); ++r) {
      const auto point = row_of_point.find(cell_text(*result_id, r));
      if (point == row_of_point.end()) continue;
      std::string name;
      for (const Column* a : axes) {
        if (distinct_values(*a, points) < 2) continue;
        name += (name.empty() ? "" : ", ") + a->name + "=" + cell_text(*a, point->second);
      }
      if (chip) name += (name.empty() ? "" : ", ") + cell_text(*chip, r);
      series[name.empty() ? "all points" : name].push_back({point->second, numeric(*y, r)});
    }
    if (series.empty()) continue;
    const std::string id_text = "chart" + std::to_string(next_id++);
    const ChartAxis y_axis = metric_axis(metric, y->units);
    if (x_axis) {
      XYChart chart;
      chart.id = id_text;
      chart.x = metric_axis(x_axis->name, x_axis->units);
      chart.y = y_axis;
      for (const auto& [name, rows] : series) {
        XYSeries s{name, {}, {}, {}, {}, {}, true, false, {}};
        for (const auto& [point, value] : rows) {
          s.xs.push_back(numeric(*x_axis, point));
          s.ys.push_back(value);
          s.tips.push_back(name + "\n" + x_axis->name + " = " + cell_text(*x_axis, point) + "\n" +
                           metric + " = " + std::to_string(value));
          s.line.push_back(s.xs.size() - 1);
        }
        std::sort(s.line.begin(), s.line.end(),
                  [&](size_t a, size_t b) { return s.xs[a] < s.xs[b]; });
        chart.series.push_back(std::move(s));
      }
      out << figure_html(y_axis.title + " against " + x_axis->name + " (sweep points)",
                         render_chart(chart));
    } else {
      BarChart chart;
      chart.id = id_text;
      chart.stacked = false;
      chart.category = {"sweep point", ""};
      chart.value = y_axis;
      for (const auto& [name, rows] : series) {
        chart.series.push_back(name);
        chart.values.emplace_back();
        for (const auto& [point, value] : rows) {
          const std::string category = "point " + cell_text(*id, point).substr(0, 6);
          auto it = std::find(chart.categories.begin(), chart.categories.end(), category);
          if (it == chart.categories.end()) {
            chart.categories.push_back(category);
            it = chart.categories.end() - 1;
          }
          auto& row = chart.values.back();
          row.resize(chart.categories.size(), NAN);
          row[static_cast<size_t>(it - chart.categories.begin())] = value;
        }
      }
      for (auto& row : chart.values) row.resize(chart.categories.size(), NAN);
      out << figure_html(y_axis.title + " per sweep point", render_chart(chart));
    }
    ++drawn;
  }
  return drawn;
}

}  // namespace scoville::output
