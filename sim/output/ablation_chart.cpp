#include "sim/output/ablation_chart.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

#include "sim/output/h5_reader.hpp"
#include "sim/output/h5_table_access.hpp"
#include "sim/output/svg_chart.hpp"
#include "sim/output/svg_text.hpp"

namespace scoville::output {

namespace {

struct Metric {
  const char* column;
  const char* title;
};

// Side-by-side bars of `metrics` (those the table has) per variant; no chart when none is there.
bool bars(std::ostringstream& out, const Table& t, const std::vector<std::string>& variants,
          const std::vector<Metric>& metrics, const std::string& value_title,
          const std::string& caption, const std::string& id) {
  BarChart chart;
  chart.id = id;
  chart.stacked = false;
  chart.categories = variants;
  chart.category = {"variant", ""};
  for (const Metric& m : metrics) {
    const Column* c = find_column(t, m.column);
    if (!c || is_text(*c)) continue;
    std::vector<double> values;
    bool any = false;  // a metric that is 0 in every variant (no KV transfers) gets no entry
    for (size_t r = 0; r < rows_of(t); ++r) {
      values.push_back(numeric(*c, r));
      any = any || (std::isfinite(values.back()) && values.back() > 0);
    }
    if (!any) continue;
    chart.value = {value_title, c->units};
    chart.series.push_back(m.title);
    chart.values.push_back(values);
  }
  if (chart.series.empty()) return false;
  out << figure_html(caption, render_chart(chart));
  return true;
}

// The changes relative to the baseline (the *_rel columns) in percent, one row per variant.
void relative_table(std::ostringstream& out, const Table& t,
                    const std::vector<std::string>& variants) {
  std::vector<const Column*> columns;
  for (const Column& c : t.columns) {
    const size_t n = c.name.size();
    if (!is_text(c) && n > 4 && c.name.compare(n - 4, 4, "_rel") == 0) columns.push_back(&c);
  }
  if (columns.empty()) return;
  out << "<h3>Change relative to the baseline</h3>\n<table class=data><tr><th>variant</th>";
  for (const Column* c : columns) {
    out << "<th>" << xml_escape(c->name.substr(0, c->name.size() - 4)) << "</th>";
  }
  out << "</tr>\n";
  for (size_t r = 0; r < variants.size(); ++r) {
    out << "<tr><td>" << xml_escape(variants[r]) << "</td>";
    for (const Column* c : columns) {
      const double v = numeric(*c, r);
      char b[32];
      std::snprintf(b, sizeof b, "%+.1f %%", 100.0 * v);
      out << "<td class=num>" << (std::isfinite(v) ? b : "n/a") << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
}

}  // namespace

bool render_ablation_charts(std::ostringstream& out, const H5Document& doc, const std::string& name,
                            int& next_id) {
  const Table* t = find_table(doc, "/ablation");
  if (!t || rows_of(*t) == 0) return false;
  // The varied keys are the text columns; a variant is named by its values.
  std::vector<std::string> keys, variants(rows_of(*t));
  for (const Column& c : t->columns) {
    if (!is_text(c)) continue;
    keys.push_back(c.name);
    for (size_t r = 0; r < variants.size(); ++r) {
      variants[r] += (variants[r].empty() ? "" : ", ") + cell_text(c, r);
    }
  }
  if (keys.empty()) return false;
  variants.front() += " (baseline)";
  std::string varied;
  for (const std::string& k : keys) varied += (varied.empty() ? "" : ", ") + k;
  out << "<h2>Ablation: " << xml_escape(varied) << "</h2>\n<p class=note>"
      << xml_escape(attribute_text(doc, "model")) << " on "
      << xml_escape(attribute_text(doc, "system")) << "; variants named by the values of "
      << xml_escape(varied) << "; the first is the baseline the table's *_rel columns compare "
      << "with (a fraction: 0.1 is +10 %)</p>\n";
  bars(out, *t, variants,
       {{"prefill_time", "prefill"},
        {"decode_time", "decode"},
        {"kv_transfer_time", "KV transfer"},
        {"network_time", "network"}},
       "time", name + ": phase times per variant (KV transfer and network time are inside them)",
       "ablation-time-" + std::to_string(next_id++));
  bars(out, *t, variants, {{"energy", "both phases"}, {"kv_transfer_energy", "KV transfer"}},
       "energy", name + ": energy per variant (the KV transfers' energy is inside the total)",
       "ablation-energy-" + std::to_string(next_id++));
  relative_table(out, *t, variants);
  return true;
}

}  // namespace scoville::output
