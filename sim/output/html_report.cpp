#include "sim/output/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "sim/output/ablation_chart.hpp"
#include "sim/output/h5_reader.hpp"
#include "sim/output/h5_table_access.hpp"
#include "sim/output/plan_chart.hpp"
#include "sim/output/power_timeline_chart.hpp"
#include "sim/output/report_run_charts.hpp"
#include "sim/output/report_serving_charts.hpp"
#include "sim/output/report_sweep_charts.hpp"
#include "sim/output/svg_text.hpp"
#include "sim/output/validation_chart.hpp"

namespace scoville::output {

namespace {

// Tables with more rows than this are summarised, not printed in full (the ops table has
// thousands of rows; the HDF5 file is the place to read them).
constexpr size_t kMaxTableRows = 60;
std::string cell(const Column& column, size_t row) { return cell_text(column, row); }

void render_table(std::ostringstream& out, const Table& table) {
  const size_t rows = rows_of(table);
  out << "<h3>" << xml_escape(table.path) << " <small>(" << rows << " rows)</small></h3>\n";
  if (rows > kMaxTableRows) {
    out << "<p class=note>Too many rows to show; read it with <code>tools/results FILE "
        << xml_escape(table.path.substr(1)) << "</code>.</p>\n";
    return;
  }
  out << "<table class=data><tr>";
  for (const Column& c : table.columns) {
    out << "<th>" << xml_escape(c.name)
        << (c.units.empty() || c.units == "1" ? "" : " [" + xml_escape(c.units) + "]") << "</th>";
  }
  out << "</tr>\n";
  for (size_t r = 0; r < rows; ++r) {
    out << "<tr>";
    for (const Column& c : table.columns) {
      const bool text = std::holds_alternative<std::vector<std::string>>(c.values);
      out << (text ? "<td>" : "<td class=num>") << xml_escape(cell(c, r)) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
}

const char kStyle[] = R"(body{font:14px system-ui,sans-serif;margin:2em;color:#222;max-width:1100px}
table.data{border-collapse:collapse;margin:.5em 0 1.5em}table.data td,table.data th{border:1px solid #ccc;padding:2px 6px}
td.num{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3}
svg.chart{background:#fff;border:1px solid #ddd;max-width:100%;height:auto}svg.chart text{fill:#333}
figcaption{font-size:13px;color:#444;margin-bottom:4px}
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
    if (const auto* d = std::get_if<double>(&value)) return number_text(*d);
  }
  return "";
}

}  // namespace

std::string render_html_report(const std::vector<ReportInput>& inputs) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>Scoville report</title>"
      << "<style>" << kStyle
      << "</style></head><body>\n<h1>Scoville report</h1>\n<div id=tip></div>\n";
  std::vector<NamedDocument> named;
  for (const ReportInput& in : inputs) named.push_back({in.path, &in.doc});
  render_pareto(out, named);
  int chart_id = 0;
  for (const ReportInput& in : inputs) {
    out << "<section><h2>" << xml_escape(in.path) << "</h2>\n<table class=data>";
    for (const char* key : {"tool_version", "git_sha", "seed", "command_line", "created_utc"}) {
      out << "<tr><th>" << key << "</th><td>" << xml_escape(text_attribute(in.doc, key))
          << "</td></tr>";
    }
    out << "</table>\n";
    render_run_charts(out, in.doc, chart_id);
    chart_id += render_power_timeline(out, in.doc, chart_id);
    render_latency_charts(out, in.doc, chart_id);
    render_sweep_charts(out, in.doc, chart_id);
    render_plan_chart(out, in.doc, in.path);
    render_validation_charts(out, in.doc, in.path, chart_id);
    render_ablation_charts(out, in.doc, in.path, chart_id);
    for (const Table& table : in.doc.tables) render_table(out, table);
    for (const StringDataset& s : in.doc.strings) {
      if (s.path != "/config/resolved_yaml") continue;
      out << "<details><summary>Resolved configuration</summary><pre>" << xml_escape(s.text)
          << "</pre></details>\n";
    }
    out << "</section>\n";
  }
  out << "<script>" << kScript << "</script>\n</body></html>\n";
  return out.str();
}

}  // namespace scoville::output
