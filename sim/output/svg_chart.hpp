// The one SVG chart module of `scoville report`: scatter/line charts and bar charts with axis
// titles carrying units, nice ticks (svg_axis), a legend to the right of the plot area, each
// series with its own colour and marker shape (later series drawn smaller, so a point of one
// never hides another's at the same place), hover text on every mark (data-tip), and text
// placed without overlaps (svg_text): a point label that fits nowhere is dropped and the drops
// are counted on the chart (data-dropped-labels) and in its caption.
//
// The output is well-formed XML (every attribute quoted) so that tools/check-figures can read
// it; every text carries x, y, font-size and text-anchor, and its role as a class (x-title,
// y-title, tick, legend, label).
#pragma once

#include <string>
#include <vector>

namespace scoville::output {

// What an axis shows and its unit as stored ("s", "J", "1/s", "tok/s/user", "count", "ratio";
// "" for categories).
struct ChartAxis {
  std::string title;
  std::string unit;
};

struct XYSeries {
  std::string name;
  std::vector<double> xs, ys;
  std::vector<std::string> tips;    // hover text per point ('\n' between lines), or none
  std::vector<std::string> labels;  // text beside a point ("" for none), or none
  std::vector<size_t> line;         // points joined by a line, in this order; none: no line
  bool markers = true;
  bool dashed = false;
  std::string colour;  // "" : the palette's colour for its place; else a CSS colour ("#888")
};

struct XYChart {
  std::string id;
  ChartAxis x, y;
  std::vector<XYSeries> series;
  bool x_from_zero = true, y_from_zero = true;
};

struct BarChart {
  std::string id;
  ChartAxis category, value;
  std::vector<std::string> categories;
  std::vector<std::string> series;
  std::vector<std::vector<double>> values;  // [series][category]; NaN or <= 0: no bar
  bool stacked = true;                      // false: the series side by side
};

struct RenderedChart {
  std::string svg;
  int dropped_labels = 0;
};

RenderedChart render_chart(const XYChart& chart);
RenderedChart render_chart(const BarChart& chart);

// <figure> with `caption` (and the count of dropped labels, if any) around the chart.
std::string figure_html(const std::string& caption, const RenderedChart& chart);

}  // namespace scoville::output
