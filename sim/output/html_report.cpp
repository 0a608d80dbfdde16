#include "sim/output/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "sim/base/pareto.hpp"
#include "sim/output/h5_reader.hpp"
#include "sim/output/plan_chart.hpp"
#include "sim/output/power_timeline_chart.hpp"

namespace scoville::output {

namespace {

// Tables with more rows than this are summarised, not printed in full (the ops table has
// thousands of rows; the HDF5 file is the place to read them).
constexpr size_t kMaxTableRows = 60;
constexpr int kChartWidth = 640;
constexpr int kChartHeight = 300;
constexpr int kMargin = 50;
const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

std::string html(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Axis ticks: three significant digits are enough to read a chart.
std::string tick(double v) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.3g", v);
  return b;
}

std::string number(double v) {
  char b[32];
  if (v != 0 && (std::fabs(v) >= 1e6 || std::fabs(v) < 1e-3)) {
    std::snprintf(b, sizeof(b), "%.4g", v);
  } else {
    std::snprintf(b, sizeof(b), "%.6g", v);
  }
  return b;
}

const Table* find_table(const H5Document& doc, const std::string& path) {
  for (const Table& t : doc.tables) {
    if (t.path == path) return &t;
  }
  return nullptr;
}

const Column* find_column(const Table& table, const std::string& name) {
  for (const Column& c : table.columns) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

size_t rows_of(const Table& table) {
  if (table.columns.empty()) return 0;
  return std::visit([](const auto& v) { return v.size(); }, table.columns.front().values);
}

std::string cell(const Column& column, size_t row) {
  if (const auto* d = std::get_if<std::vector<double>>(&column.values)) return number((*d)[row]);
  if (const auto* i = std::get_if<std::vector<int64_t>>(&column.values)) {
    return std::to_string((*i)[row]);
  }
  return std::get<std::vector<std::string>>(column.values)[row];
}

double numeric(const Column& column, size_t row) {
  if (const auto* d = std::get_if<std::vector<double>>(&column.values)) return (*d)[row];
  if (const auto* i = std::get_if<std::vector<int64_t>>(&column.values)) {
    return static_cast<double>((*i)[row]);
  }
  return 0.0;
}

void render_table(std::ostringstream& out, const Table& table) {
  const size_t rows = rows_of(table);
  out << "<h3>" << html(table.path) << " <small>(" << rows << " rows)</small></h3>\n";
  if (rows > kMaxTableRows) {
    out << "<p class=note>Too many rows to show; read it with <code>tools/results FILE "
        << html(table.path.substr(1)) << "</code>.</p>\n";
    return;
  }
  out << "<table class=data><tr>";
  for (const Column& c : table.columns) {
    out << "<th>" << html(c.name)
        << (c.units.empty() || c.units == "1" ? "" : " [" + html(c.units) + "]") << "</th>";
  }
  out << "</tr>\n";
  for (size_t r = 0; r < rows; ++r) {
    out << "<tr>";
    for (const Column& c : table.columns) {
      const bool text = std::holds_alternative<std::vector<std::string>>(c.values);
      out << (text ? "<td>" : "<td class=num>") << html(cell(c, r)) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
}

// A stacked bar chart: one bar per category, one segment per series; every segment carries its
// value in a tooltip.
struct Stacked {
  std::string title;
  std::string unit;
  std::vector<std::string> categories;
  std::vector<std::string> series;
  std::map<std::pair<std::string, std::string>, double> values;  // (category, series)
};

void render_stacked(std::ostringstream& out, const Stacked& chart, const std::string& id) {
  double top = 0;
  for (const std::string& c : chart.categories) {
    double sum = 0;
    for (const std::string& s : chart.series) {
      auto it = chart.values.find({c, s});
      if (it != chart.values.end()) sum += it->second;
    }
    top = std::max(top, sum);
  }
  if (top <= 0) top = 1;
  const int plot_w = kChartWidth - 2 * kMargin;
  const int plot_h = kChartHeight - 2 * kMargin;
  const double slot = chart.categories.empty() ? plot_w : double(plot_w) / chart.categories.size();
  out << "<figure><figcaption>" << html(chart.title) << "</figcaption><svg class=chart id=\"" << id
      << "\" width=" << kChartWidth << " height=" << kChartHeight + 20 << ">\n";
  out << "<text x=8 y=" << kMargin - 10 << " class=axis>" << html(chart.unit) << "</text>";
  for (int t = 0; t <= 4; ++t) {
    const double y = kMargin + plot_h - plot_h * t / 4.0;
    out << "<line x1=" << kMargin << " x2=" << kMargin + plot_w << " y1=" << y << " y2=" << y
        << " class=grid /><text x=4 y=" << y + 4 << " class=axis>" << tick(top * t / 4.0)
        << "</text>";
  }
  for (size_t ci = 0; ci < chart.categories.size(); ++ci) {
    const std::string& c = chart.categories[ci];
    double base = 0;
    const double x = kMargin + slot * ci + slot * 0.15;
    for (size_t si = 0; si < chart.series.size(); ++si) {
      auto it = chart.values.find({c, chart.series[si]});
      if (it == chart.values.end() || it->second <= 0) continue;
      const double h = plot_h * it->second / top;
      const double y = kMargin + plot_h - plot_h * base / top - h;
      out << "<rect x=" << x << " y=" << y << " width=" << slot * 0.7 << " height=" << h
          << " fill=\"" << kPalette[si % 10] << "\" data-tip=\"" << html(c) << " / "
          << html(chart.series[si]) << ": " << number(it->second) << " " << html(chart.unit)
          << "\"/>";
      base += it->second;
    }
    out << "<text x=" << x << " y=" << kMargin + plot_h + 16 << " class=axis>" << html(c)
        << "</text>";
  }
  out << "</svg><div class=legend>";
  for (size_t si = 0; si < chart.series.size(); ++si) {
    out << "<span><i style=\"background:" << kPalette[si % 10] << "\"></i>"
        << html(chart.series[si]) << "</span>";
  }
  out << "</div></figure>\n";
}

// Phase time split by what bounds each op, ops weighted by the real iterations their simulated
// iteration stands for (the same figure as tools/plot breakdown).
bool time_by_bound(const H5Document& doc, Stacked& chart) {
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
    iteration[{cell(*it_chip, r), static_cast<int64_t>(numeric(*it_index, r))}] = {
        cell(*it_phase, r), numeric(*it_weight, r)};
  }
  chart.title = "Phase time by bound";
  chart.unit = "s";
  for (size_t r = 0; r < rows_of(*ops); ++r) {
    auto it = iteration.find({cell(*op_chip, r), static_cast<int64_t>(numeric(*op_it, r))});
    if (it == iteration.end()) continue;
    const std::string category = cell(*op_chip, r) + " " + it->second.first;
    const std::string bound = cell(*op_bound, r);
    if (std::find(chart.categories.begin(), chart.categories.end(), category) ==
        chart.categories.end()) {
      chart.categories.push_back(category);
    }
    if (std::find(chart.series.begin(), chart.series.end(), bound) == chart.series.end()) {
      chart.series.push_back(bound);
    }
    chart.values[{category, bound}] += numeric(*op_dur, r) * it->second.second;
  }
  std::sort(chart.series.begin(), chart.series.end());
  return !chart.categories.empty();
}

bool energy_by_component(const H5Document& doc, Stacked& chart) {
  const Table* energy = find_table(doc, "/energy");
  if (!energy) return false;
  const Column* chip = find_column(*energy, "chip");
  const Column* phase = find_column(*energy, "phase");
  const Column* component = find_column(*energy, "component");
  const Column* joules = find_column(*energy, "energy_J");
  if (!chip || !phase || !component || !joules) return false;
  chart.title = "Phase energy by component";
  chart.unit = "J";
  for (size_t r = 0; r < rows_of(*energy); ++r) {
    const std::string category = cell(*chip, r) + " " + cell(*phase, r);
    if (std::find(chart.categories.begin(), chart.categories.end(), category) ==
        chart.categories.end()) {
      chart.categories.push_back(category);
    }
    if (std::find(chart.series.begin(), chart.series.end(), cell(*component, r)) ==
        chart.series.end()) {
      chart.series.push_back(cell(*component, r));
    }
    chart.values[{category, cell(*component, r)}] += numeric(*joules, r);
  }
  return !chart.categories.empty();
}

void render_pareto(std::ostringstream& out, const std::vector<ReportInput>& inputs) {
  struct Series {
    std::string name;
    const Table* table;
    std::vector<double> xs, ys;
  };
  std::vector<Series> all;
  for (const ReportInput& in : inputs) {
    // A scenario sweep's index keeps its points' serving metrics in /results (docs/sweeps.md).
    const bool scenario_sweep = attribute_text(in.doc, "point_kind") == "scenario";
    const Table* points = find_table(in.doc, scenario_sweep ? "/results" : "/points");
    if (!points) continue;
    const Column* x = find_column(*points, "intvty");
    const Column* y = find_column(*points, "tput_per_chip");
    if (!x || !y) continue;
    Series s{in.path, points, {}, {}};
    for (size_t r = 0; r < rows_of(*points); ++r) {
      s.xs.push_back(numeric(*x, r));
      s.ys.push_back(numeric(*y, r));
    }
    all.push_back(std::move(s));
  }
  if (all.empty()) return;
  double max_x = 0, max_y = 0;
  for (const Series& s : all) {
    for (double v : s.xs) max_x = std::max(max_x, v);
    for (double v : s.ys) max_y = std::max(max_y, v);
  }
  max_x = max_x > 0 ? max_x * 1.05 : 1;
  max_y = max_y > 0 ? max_y * 1.05 : 1;
  const int plot_w = kChartWidth - 2 * kMargin;
  const int plot_h = kChartHeight - 2 * kMargin;
  auto px = [&](double v) { return kMargin + plot_w * v / max_x; };
  auto py = [&](double v) { return kMargin + plot_h - plot_h * v / max_y; };
  out << "<h2>Throughput against interactivity</h2><figure><figcaption>tput_per_chip [tok/s] "
         "against intvty [tok/s/user]; the line is each file's Pareto frontier</figcaption>"
      << "<svg class=chart id=pareto width=" << kChartWidth << " height=" << kChartHeight + 20
      << ">\n";
  for (int t = 0; t <= 4; ++t) {
    out << "<text x=4 y=" << py(max_y * t / 4) + 4 << " class=axis>" << tick(max_y * t / 4)
        << "</text><text x=" << px(max_x * t / 4) - 10 << " y=" << kMargin + plot_h + 16
        << " class=axis>" << tick(max_x * t / 4) << "</text>";
  }
  for (size_t si = 0; si < all.size(); ++si) {
    const Series& s = all[si];
    const char* colour = kPalette[si % 10];
    out << "<polyline fill=none stroke=\"" << colour << "\" points=\"";
    for (size_t i : pareto_frontier(s.xs, s.ys)) out << px(s.xs[i]) << "," << py(s.ys[i]) << " ";
    out << "\"/>\n";
    for (size_t r = 0; r < s.xs.size(); ++r) {
      std::string tip = html(s.name);
      for (const Column& c : s.table->columns)
        tip += "&#10;" + html(c.name) + " = " + html(cell(c, r));
      out << "<circle class=point cx=" << px(s.xs[r]) << " cy=" << py(s.ys[r]) << " r=4 fill=\""
          << colour << "\" data-tip=\"" << tip << "\"/>";
    }
  }
  out << "</svg><div class=legend>";
  for (size_t si = 0; si < all.size(); ++si) {
    out << "<span><i style=\"background:" << kPalette[si % 10] << "\"></i>" << html(all[si].name)
        << "</span>";
  }
  out << "</div></figure>\n";
}

const char kStyle[] = R"(body{font:14px system-ui,sans-serif;margin:2em;color:#222;max-width:1100px}
table.data{border-collapse:collapse;margin:.5em 0 1.5em}table.data td,table.data th{border:1px solid #ccc;padding:2px 6px}
td.num{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3}
svg.chart{background:#fff;border:1px solid #ddd}.axis{font-size:11px;fill:#555}.grid{stroke:#eee}
.legend span{margin-right:1em;font-size:12px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}
#tip{position:fixed;pointer-events:none;background:#222;color:#fff;padding:4px 8px;border-radius:4px;
font-size:12px;white-space:pre;display:none}pre{background:#f7f7f7;padding:1em;overflow:auto}
.note{color:#666}figure{margin:1em 0}
)";

// Tooltips for every element with data-tip; errors are recorded on <body> so a headless test can
// see them in the DOM, and data-ready marks that the script ran to the end.
const char kScript[] = R"(
(function(){
  var errors=[];
  window.addEventListener('error',function(e){errors.push(String(e.message));
    document.body.setAttribute('data-js-errors',errors.join('; '));});
  var tip=document.getElementById('tip');
  document.querySelectorAll('[data-tip]').forEach(function(el){
    el.addEventListener('mousemove',function(e){tip.textContent=el.getAttribute('data-tip');
      tip.style.display='block';tip.style.left=(e.clientX+12)+'px';tip.style.top=(e.clientY+12)+'px';});
    el.addEventListener('mouseleave',function(){tip.style.display='none';});
  });
  document.body.setAttribute('data-charts',String(document.querySelectorAll('svg.chart').length));
  document.body.setAttribute('data-ready','1');
})();
)";

std::string text_attribute(const H5Document& doc, const std::string& name) {
  for (const auto& [key, value] : doc.root_attributes) {
    if (key != name) continue;
    if (const auto* t = std::get_if<std::string>(&value)) return *t;
    if (const auto* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
    if (const auto* d = std::get_if<double>(&value)) return number(*d);
  }
  return "";
}

}  // namespace

std::string render_html_report(const std::vector<ReportInput>& inputs) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>Scoville report</title>"
      << "<style>" << kStyle
      << "</style></head><body>\n<h1>Scoville report</h1>\n<div id=tip></div>\n";
  render_pareto(out, inputs);
  int chart_id = 0;
  for (const ReportInput& in : inputs) {
    out << "<section><h2>" << html(in.path) << "</h2>\n<table class=data>";
    for (const char* key : {"tool_version", "git_sha", "seed", "command_line", "created_utc"}) {
      out << "<tr><th>" << key << "</th><td>" << html(text_attribute(in.doc, key)) << "</td></tr>";
    }
    out << "</table>\n";
    Stacked bound_chart, energy_chart;
    if (time_by_bound(in.doc, bound_chart)) {
      render_stacked(out, bound_chart, "chart" + std::to_string(chart_id++));
    }
    if (energy_by_component(in.doc, energy_chart)) {
      render_stacked(out, energy_chart, "chart" + std::to_string(chart_id++));
    }
    chart_id += render_power_timeline(out, in.doc, chart_id);
    render_plan_chart(out, in.doc, in.path);
    for (const Table& table : in.doc.tables) render_table(out, table);
    for (const StringDataset& s : in.doc.strings) {
      if (s.path != "/config/resolved_yaml") continue;
      out << "<details><summary>Resolved configuration</summary><pre>" << html(s.text)
          << "</pre></details>\n";
    }
    out << "</section>\n";
  }
  out << "<script>" << kScript << "</script>\n</body></html>\n";
  return out.str();
}

}  // namespace scoville::output
