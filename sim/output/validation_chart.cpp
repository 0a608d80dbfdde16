#include "sim/output/validation_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "sim/output/h5_reader.hpp"
#include "sim/output/h5_table_access.hpp"
#include "sim/output/report_metric_axes.hpp"
#include "sim/output/svg_chart.hpp"
#include "sim/output/svg_text.hpp"

namespace scoville::output {

namespace {

struct ValidationColumns {
  const Column *id, *system, *model, *stack, *concurrency;
};

std::string percent(double fraction) {
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f %%", 100.0 * fraction);
  return b;
}

// The series of `name` (one per system), appended on its first row.
XYSeries& series_named(std::vector<XYSeries>& series, std::map<std::string, size_t>& index,
                       const std::string& name) {
  auto found = index.find(name);
  if (found == index.end()) {
    found = index.emplace(name, series.size()).first;
    series.emplace_back();
    series.back().name = name;
  }
  return series[found->second];
}

// Predicted (y) against measured (x) of one quantity: a series per system in the order the
// systems first appear, then y = x and the band as lines from the origin to the largest value.
XYChart predicted_against_measured(const Table& t, const ValidationColumns& c,
                                   const Column& measured, const Column& predicted,
                                   const std::string& metric, const std::string& id) {
  XYChart chart;
  chart.id = id;
  const ChartAxis axis = metric_axis(metric, measured.units);
  chart.x = {"measured " + axis.title, axis.unit};
  chart.y = {"predicted " + axis.title, axis.unit};
  std::vector<XYSeries> series;
  std::map<std::string, size_t> series_of;
  double largest = 0;
  for (size_t r = 0; r < rows_of(t); ++r) {
    const double x = numeric(measured, r), y = numeric(predicted, r);
    if (!std::isfinite(x) || !std::isfinite(y)) continue;
    const std::string system = cell_text(*c.system, r);
    XYSeries& s = series_named(series, series_of, system);
    s.xs.push_back(x);
    s.ys.push_back(y);
    s.labels.push_back(cell_text(*c.id, r));
    s.tips.push_back("row " + cell_text(*c.id, r) + ": " + cell_text(*c.model, r) + " on " +
                     system + "\nstack " + cell_text(*c.stack, r) + ", concurrency " +
                     cell_text(*c.concurrency, r) + "\nmeasured " + number_text(x) + " " +
                     axis.unit + ", predicted " + number_text(y) + " " + axis.unit + " (" +
                     percent(y / x - 1.0) + ")");
    largest = std::max({largest, x, y});
  }
  chart.series = std::move(series);
  if (largest <= 0) return chart;
  // Reference lines in greys, apart from the systems' palette colours.
  const auto reference = [&](const std::string& name, double slope, bool dashed) {
    XYSeries line;
    line.name = name;
    line.xs = {0.0, largest};
    line.ys = {0.0, slope * largest};
    line.line = {0, 1};
    line.markers = false;
    line.dashed = dashed;
    line.colour = dashed ? "#9a9a9a" : "#444444";
    chart.series.push_back(line);
  };
  const std::string band = std::to_string(static_cast<int>(std::lround(100 * kValidationBand)));
  reference("predicted = measured", 1.0, false);
  reference("+" + band + " %", 1.0 + kValidationBand, true);
  reference("-" + band + " %", 1.0 - kValidationBand, true);
  return chart;
}

// The signed throughput error (percent) against the measured throughput, a series per system,
// with 0 and the band as horizontal lines: scale-free, so rows of a few hundred tok/s and of
// tens of thousands read alike (they crowd the origin of the chart above).
XYChart error_against_measured(const Table& t, const ValidationColumns& c, const Column& measured,
                               const Column& error, const std::string& id) {
  XYChart chart;
  chart.id = id;
  const ChartAxis axis = metric_axis("tput_per_chip", measured.units);
  chart.x = {"measured " + axis.title, axis.unit};
  chart.y = {"throughput error", "%"};
  std::vector<XYSeries> series;
  std::map<std::string, size_t> series_of;
  double largest = 0;
  for (size_t r = 0; r < rows_of(t); ++r) {
    const double x = numeric(measured, r), y = 100.0 * numeric(error, r);
    if (!std::isfinite(x) || !std::isfinite(y)) continue;
    const std::string system = cell_text(*c.system, r);
    XYSeries& s = series_named(series, series_of, system);
    s.xs.push_back(x);
    s.ys.push_back(y);
    s.labels.push_back(cell_text(*c.id, r));
    s.tips.push_back("row " + cell_text(*c.id, r) + ": " + cell_text(*c.model, r) + " on " +
                     system + "\nmeasured " + number_text(x) + " " + axis.unit + ", error " +
                     percent(y / 100.0));
    largest = std::max(largest, x);
  }
  chart.series = std::move(series);
  chart.y_from_zero = false;
  const auto level = [&](const std::string& name, double y, bool dashed) {
    XYSeries line;
    line.name = name;
    line.xs = {0.0, largest};
    line.ys = {y, y};
    line.line = {0, 1};
    line.markers = false;
    line.dashed = dashed;
    line.colour = dashed ? "#9a9a9a" : "#444444";
    chart.series.push_back(line);
  };
  const double band = 100 * kValidationBand;
  level("no error", 0.0, false);
  level("+" + std::to_string(std::lround(band)) + " %", band, true);
  level("-" + std::to_string(std::lround(band)) + " %", -band, true);
  return chart;
}

// Mean absolute percentage errors per system, in the order the systems first appear, and over
// all rows.
void render_mape_table(std::ostringstream& out, const Table& t, const Column& system,
                       const Column& tput_error, const Column* intvty_error) {
  struct Sum {
    double tput = 0, intvty = 0;
    int tput_n = 0, intvty_n = 0;
  };
  std::vector<std::string> order;
  std::map<std::string, Sum> sums;
  Sum all;
  for (size_t r = 0; r < rows_of(t); ++r) {
    const std::string name = cell_text(system, r);
    if (!sums.count(name)) order.push_back(name);
    Sum& s = sums[name];
    for (Sum* into : {&s, &all}) {
      const double e = numeric(tput_error, r);
      if (std::isfinite(e)) into->tput += std::fabs(e), ++into->tput_n;
      const double i = intvty_error ? numeric(*intvty_error, r) : NAN;
      if (std::isfinite(i)) into->intvty += std::fabs(i), ++into->intvty_n;
    }
  }
  const auto mape = [](double sum, int n) {
    if (n == 0) return std::string("-");
    char b[32];
    std::snprintf(b, sizeof b, "%.1f %%", 100.0 * sum / n);
    return std::string(b);
  };
  out << "<h3>Mean absolute percentage error per system</h3>\n<table class=data><tr>"
      << "<th>system</th><th>rows</th><th>throughput per chip</th><th>rows with "
      << "interactivity</th><th>interactivity</th></tr>\n";
  order.push_back("all rows");
  sums["all rows"] = all;
  for (const std::string& name : order) {
    const Sum& s = sums[name];
    out << "<tr><td>" << xml_escape(name) << "</td><td class=num>" << s.tput_n
        << "</td><td class=num>" << mape(s.tput, s.tput_n) << "</td><td class=num>" << s.intvty_n
        << "</td><td class=num>" << mape(s.intvty, s.intvty_n) << "</td></tr>\n";
  }
  out << "</table>\n";
}

}  // namespace

bool render_validation_charts(std::ostringstream& out, const H5Document& doc,
                              const std::string& name, int& next_id) {
  const Table* t = find_table(doc, "/validation");
  if (!t || rows_of(*t) == 0) return false;
  // Grouped by the system file the rows were predicted on (its calibration overlay applies to
  // all of them), as validate's own summary groups them.
  const ValidationColumns c{find_column(*t, "id"), find_column(*t, "system_file"),
                            find_column(*t, "model"), find_column(*t, "stack"),
                            find_column(*t, "concurrency")};
  const Column* measured = find_column(*t, "measured_tput_per_chip");
  const Column* predicted = find_column(*t, "predicted_tput_per_chip");
  const Column* error = find_column(*t, "tput_error");
  if (!c.id || !c.system || !c.model || !c.stack || !c.concurrency || !measured || !predicted ||
      !error) {
    return false;
  }
  out << "<h2>Validation: predicted against measured</h2>\n<p class=note>"
      << xml_escape(attribute_text(doc, "fidelity")) << " fidelity; serving stacks "
      << xml_escape(attribute_text(doc, "stacks")) << "; calibration "
      << xml_escape(attribute_text(doc, "calibration")) << "; measurements "
      << xml_escape(attribute_text(doc, "measurements")) << "</p>\n";
  const std::string band = std::to_string(static_cast<int>(std::lround(100 * kValidationBand)));
  out << figure_html(
      name +
          ": predicted against measured throughput per chip, per system (the "
          "dashed lines: +-" +
          band + " %)",
      render_chart(predicted_against_measured(*t, c, *measured, *predicted, "tput_per_chip",
                                              "validation-tput-" + std::to_string(next_id++))));
  out << figure_html(
      name +
          ": throughput error (predicted / measured - 1) against measured "
          "throughput per chip, per system",
      render_chart(error_against_measured(*t, c, *measured, *error,
                                          "validation-error-" + std::to_string(next_id++))));
  const Column* measured_intvty = find_column(*t, "measured_intvty");
  const Column* predicted_intvty = find_column(*t, "predicted_intvty");
  const Column* intvty_error = find_column(*t, "intvty_error");
  if (measured_intvty && predicted_intvty) {
    const XYChart chart =
        predicted_against_measured(*t, c, *measured_intvty, *predicted_intvty, "intvty",
                                   "validation-intvty-" + std::to_string(next_id++));
    if (!chart.series.empty()) {
      out << figure_html(name +
                             ": predicted against measured interactivity, for the rows that "
                             "publish it (the dashed lines: +-" +
                             band + " %)",
                         render_chart(chart));
    }
  }
  render_mape_table(out, *t, *c.system, *error, intvty_error);
  return true;
}

}  // namespace scoville::output
