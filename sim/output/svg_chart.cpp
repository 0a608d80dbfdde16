#include "sim/output/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <tuple>

#include "sim/output/svg_axis.hpp"
#include "sim/output/svg_text.hpp"

namespace scoville::output {

namespace {

constexpr double kPlotWidth = 520, kPlotHeight = 250, kTop = 14;
constexpr double kTickFont = 11, kTitleFont = 12, kLegendFont = 12, kLabelFont = 10;
constexpr double kLegendTextMax = 230;  // longer series names are shortened (full name on hover)
const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
constexpr int kMarkerShapes = 7;

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

std::string tip_attribute(const std::string& tip) {
  std::string out;
  for (char c : xml_escape(tip)) out += c == '\n' ? std::string("&#10;") : std::string(1, c);
  return out;
}

// `text` cut (with an ellipsis) to at most `max_px` wide.
std::string shortened(const std::string& text, double font, double max_px) {
  if (text_width_px(text, font) <= max_px) return text;
  std::string cut = text;
  while (!cut.empty() && text_width_px(cut + "\xE2\x80\xA6", font) > max_px) {
    cut.pop_back();
    while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xC0) == 0x80) cut.pop_back();
    if (!cut.empty() && static_cast<unsigned char>(cut.back()) >= 0xC0) cut.pop_back();
  }
  return cut + "\xE2\x80\xA6";
}

// One chart being drawn: its SVG body and the text placed so far.
struct Canvas {
  std::ostringstream body;
  TextLayout layout;

  // Draws the text when it overlaps nothing placed before; false (nothing drawn) otherwise.
  bool text(const std::string& s, double x, double y, double font, TextAnchor anchor,
            const char* role, bool rotated = false, const std::string& tip = "") {
    if (!layout.place(text_box(s, x, y, font, anchor, rotated))) return false;
    body << "<text class=\"" << role << "\" x=\"" << num(x) << "\" y=\"" << num(y)
         << "\" font-size=\"" << font << "\" text-anchor=\"" << to_string(anchor) << "\"";
    if (rotated) body << " transform=\"rotate(-90 " << num(x) << " " << num(y) << ")\"";
    if (!tip.empty()) body << " data-tip=\"" << tip_attribute(tip) << "\"";
    body << ">" << xml_escape(s) << "</text>\n";
    return true;
  }
};

void marker(std::ostream& out, int shape, double x, double y, double r, const char* colour) {
  const std::string cx = num(x), cy = num(y);
  auto path = [&](const std::vector<std::pair<double, double>>& corners) {
    out << "<path d=\"";
    for (size_t i = 0; i < corners.size(); ++i)
      out << (i ? "L" : "M") << num(x + corners[i].first * r) << " "
          << num(y + corners[i].second * r);
    out << "Z\" fill=\"" << colour << "\"";
  };
  switch (shape % kMarkerShapes) {
    case 0:
      out << "<circle cx=\"" << cx << "\" cy=\"" << cy << "\" r=\"" << num(r) << "\" fill=\""
          << colour << "\"";
      break;
    case 1:
      path({{-0.9, -0.9}, {0.9, -0.9}, {0.9, 0.9}, {-0.9, 0.9}});
      break;
    case 2:
      path({{0, -1.2}, {1.1, 0.8}, {-1.1, 0.8}});
      break;
    case 3:
      path({{0, -1.3}, {1.1, 0}, {0, 1.3}, {-1.1, 0}});
      break;
    case 4:
      path({{0, 1.2}, {1.1, -0.8}, {-1.1, -0.8}});
      break;
    case 5:  // a cross: two bars turned 45 degrees
      path({{-1, -0.6},
            {-0.6, -1},
            {0, -0.4},
            {0.6, -1},
            {1, -0.6},
            {0.4, 0},
            {1, 0.6},
            {0.6, 1},
            {0, 0.4},
            {-0.6, 1},
            {-1, 0.6},
            {-0.4, 0}});
      break;
    default:  // a plus
      path({{-0.3, -1},
            {0.3, -1},
            {0.3, -0.3},
            {1, -0.3},
            {1, 0.3},
            {0.3, 0.3},
            {0.3, 1},
            {-0.3, 1},
            {-0.3, 0.3},
            {-1, 0.3},
            {-1, -0.3},
            {-0.3, -0.3}});
  }
  out << " stroke=\"#fff\" stroke-width=\"0.8\"";
}

// A series' own colour (reference lines), else the palette's k-th.
const char* colour_of(const XYSeries& s, size_t k) {
  return s.colour.empty() ? kPalette[k % 10] : s.colour.c_str();
}

// Marker radius of series k: later series smaller, so one drawn over another leaves a rim.
double marker_radius(size_t k) { return std::max(3.0, 5.5 - 0.7 * static_cast<double>(k)); }

struct Frame {
  double left = 0, top = kTop, width = kPlotWidth, height = kPlotHeight;
  double bottom() const { return top + height; }
  double right() const { return left + width; }
};

// Ticks of the value (y) axis, their grid lines and labels; returns the scale.
AxisScale y_axis(Canvas& c, const Frame& f, double low, double high, const std::string& unit) {
  const AxisScale s = make_axis_scale(low, high, unit, 7);
  for (size_t i = 0; i < s.ticks.size(); ++i) {
    const double y = f.bottom() - f.height * (s.ticks[i] - s.low) / (s.high - s.low);
    c.body << "<line class=\"grid\" x1=\"" << num(f.left) << "\" x2=\"" << num(f.right())
           << "\" y1=\"" << num(y) << "\" y2=\"" << num(y) << "\" stroke=\"#e6e6e6\"/>\n";
    if (!c.text(s.labels[i], f.left - 6, y + 4, kTickFont, TextAnchor::kEnd, "tick")) {
      c.layout.drop();
    }
  }
  return s;
}

double widest(const std::vector<std::string>& texts, double font) {
  double w = 0;
  for (const std::string& t : texts) w = std::max(w, text_width_px(t, font));
  return w;
}

// The left margin: room for the widest y tick label and the rotated y title.
double left_margin(const AxisScale& y) { return widest(y.labels, kTickFont) + 6 + 8 + 14 + 4; }

void axis_titles(Canvas& c, const Frame& f, const std::string& x_title, double x_title_y,
                 const std::string& y_title) {
  c.body << "<path class=\"frame\" d=\"M" << num(f.left) << " " << num(f.top) << "V"
         << num(f.bottom()) << "H" << num(f.right()) << "\" fill=\"none\" stroke=\"#444\"/>\n";
  if (!c.text(x_title, f.left + f.width / 2, x_title_y, kTitleFont, TextAnchor::kMiddle,
              "x-title")) {
    c.layout.drop();
  }
  if (!c.text(y_title, 4 + 0.8 * kTitleFont, f.top + f.height / 2, kTitleFont, TextAnchor::kMiddle,
              "y-title", true)) {
    c.layout.drop();
  }
}

// Legend entries to the right of the plot; `draw_key(out, x, y, k)` draws entry k's key.
template <class DrawKey>
double legend(Canvas& c, const Frame& f, const std::vector<std::string>& names, DrawKey draw_key) {
  const double x = f.right() + 18;
  double right = x;
  for (size_t k = 0; k < names.size(); ++k) {
    const double y = f.top + 10 + 18 * k;
    draw_key(c.body, x, y, k);
    const std::string shown = shortened(names[k], kLegendFont, kLegendTextMax);
    if (c.text(shown, x + 28, y + 4, kLegendFont, TextAnchor::kStart, "legend", false,
               shown == names[k] ? "" : names[k])) {
      right = std::max(right, x + 28 + text_width_px(shown, kLegendFont));
    } else {
      c.layout.drop();
    }
  }
  return right;
}

RenderedChart finish(Canvas& c, const std::string& id, double width, double height) {
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"" << xml_escape(id)
      << "\" width=\"" << std::ceil(width) << "\" height=\"" << std::ceil(height)
      << "\" viewBox=\"0 0 " << std::ceil(width) << " " << std::ceil(height)
      << "\" font-family=\"DejaVu Sans, Verdana, sans-serif\" data-dropped-labels=\""
      << c.layout.dropped() << "\">\n"
      << c.body.str() << "</svg>";
  return {svg.str(), c.layout.dropped()};
}

void range_of(const std::vector<double>& values, double& low, double& high) {
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    low = std::min(low, v);
    high = std::max(high, v);
  }
}

}  // namespace

RenderedChart render_chart(const XYChart& chart) {
  double x_low = INFINITY, x_high = -INFINITY, y_low = INFINITY, y_high = -INFINITY;
  for (const XYSeries& s : chart.series) {
    range_of(s.xs, x_low, x_high);
    range_of(s.ys, y_low, y_high);
  }
  if (x_low > x_high) x_low = 0, x_high = 1;
  if (y_low > y_high) y_low = 0, y_high = 1;
  if (chart.x_from_zero) x_low = std::min(0.0, x_low);
  if (chart.y_from_zero) y_low = std::min(0.0, y_low);
  Canvas c;
  Frame f;
  // The y scale first: its widest label sets the left margin.
  f.left = left_margin(make_axis_scale(y_low, y_high, chart.y.unit, 7));
  const AxisScale ys = y_axis(c, f, y_low, y_high, chart.y.unit);
  // As many x ticks as fit with a gap of 12 px between labels.
  AxisScale xs = make_axis_scale(x_low, x_high, chart.x.unit, 9);
  for (int n = 8; n >= 3; --n) {
    if (widest(xs.labels, kTickFont) + 12 <= f.width / std::max<size_t>(1, xs.ticks.size() - 1))
      break;
    xs = make_axis_scale(x_low, x_high, chart.x.unit, n);
  }
  const auto px = [&](double v) { return f.left + f.width * (v - xs.low) / (xs.high - xs.low); };
  const auto py = [&](double v) {
    return f.bottom() - f.height * (v - ys.low) / (ys.high - ys.low);
  };
  for (size_t i = 0; i < xs.ticks.size(); ++i) {
    const double x = px(xs.ticks[i]);
    c.body << "<line class=\"grid\" x1=\"" << num(x) << "\" x2=\"" << num(x) << "\" y1=\""
           << num(f.top) << "\" y2=\"" << num(f.bottom()) << "\" stroke=\"#f0f0f0\"/>\n";
    if (!c.text(xs.labels[i], x, f.bottom() + 16, kTickFont, TextAnchor::kMiddle, "tick")) {
      c.layout.drop();
    }
  }
  axis_titles(c, f, axis_title(chart.x.title, xs.unit), f.bottom() + 36,
              axis_title(chart.y.title, ys.unit));
  std::vector<std::string> names;
  for (const XYSeries& s : chart.series) names.push_back(s.name);
  const double right = legend(c, f, names, [&](std::ostream& out, double x, double y, size_t k) {
    const XYSeries& s = chart.series[k];
    if (!s.line.empty()) {
      out << "<line x1=\"" << num(x) << "\" x2=\"" << num(x + 22) << "\" y1=\"" << num(y)
          << "\" y2=\"" << num(y) << "\" stroke=\"" << colour_of(chart.series[k], k)
          << "\" stroke-width=\"2\"" << (s.dashed ? " stroke-dasharray=\"6 4\"" : "") << "/>";
    }
    if (s.markers) {
      marker(out, static_cast<int>(k), x + 11, y, marker_radius(k), colour_of(chart.series[k], k));
      out << "/>";
    }
    out << "\n";
  });
  // Lines under all markers; markers in series order, each later series smaller.
  for (size_t k = 0; k < chart.series.size(); ++k) {
    const XYSeries& s = chart.series[k];
    if (s.line.empty()) continue;
    c.body << "<polyline class=\"series-line\" fill=\"none\" stroke=\""
           << colour_of(chart.series[k], k) << "\" stroke-width=\"1.8\""
           << (s.dashed ? " stroke-dasharray=\"6 4\"" : "") << " points=\"";
    for (size_t i : s.line) c.body << num(px(s.xs[i])) << "," << num(py(s.ys[i])) << " ";
    c.body << "\"/>\n";
  }
  for (size_t k = 0; k < chart.series.size(); ++k) {
    const XYSeries& s = chart.series[k];
    if (!s.markers) continue;
    const double r = marker_radius(k);
    for (size_t i = 0; i < s.xs.size(); ++i) {
      if (!std::isfinite(s.xs[i]) || !std::isfinite(s.ys[i])) continue;
      const double x = px(s.xs[i]), y = py(s.ys[i]);
      marker(c.body, static_cast<int>(k), x, y, r, colour_of(chart.series[k], k));
      c.body << " class=\"point series-" << k << "\"";
      if (i < s.tips.size()) c.body << " data-tip=\"" << tip_attribute(s.tips[i]) << "\"";
      c.body << "/>\n";
      c.layout.block({x - r - 1, y - r - 1, x + r + 1, y + r + 1});
    }
  }
  // Point labels: beside the point, in the first of four places that is free and inside the
  // plot; a label with no free place is dropped (and counted).
  for (const XYSeries& s : chart.series) {
    for (size_t i = 0; i < s.labels.size() && i < s.xs.size(); ++i) {
      if (s.labels[i].empty() || !std::isfinite(s.xs[i]) || !std::isfinite(s.ys[i])) continue;
      const double x = px(s.xs[i]), y = py(s.ys[i]);
      bool placed = false;
      for (const auto& [dx, dy, anchor] : {std::tuple{7.0, -7.0, TextAnchor::kStart},
                                           {-7.0, -7.0, TextAnchor::kEnd},
                                           {7.0, 14.0, TextAnchor::kStart},
                                           {-7.0, 14.0, TextAnchor::kEnd}}) {
        const Box b = text_box(s.labels[i], x + dx, y + dy, kLabelFont, anchor);
        if (b.left < f.left || b.right > f.right() || b.top < f.top || b.bottom > f.bottom())
          continue;
        if (c.text(s.labels[i], x + dx, y + dy, kLabelFont, anchor, "label")) {
          placed = true;
          break;
        }
      }
      if (!placed) c.layout.drop();
    }
  }
  return finish(c, chart.id, right + 10, f.bottom() + 46);
}

RenderedChart render_chart(const BarChart& chart) {
  const size_t n = chart.categories.size();
  double top = 0;
  std::vector<double> stack(n, 0.0);
  for (const auto& row : chart.values) {
    for (size_t i = 0; i < n && i < row.size(); ++i) {
      if (!std::isfinite(row[i]) || row[i] <= 0) continue;
      stack[i] += row[i];
      top = std::max(top, chart.stacked ? stack[i] : row[i]);
    }
  }
  if (top <= 0) top = 1;
  Canvas c;
  Frame f;
  f.left = left_margin(make_axis_scale(0, top, chart.value.unit, 7));
  const AxisScale ys = y_axis(c, f, 0, top, chart.value.unit);
  const auto py = [&](double v) {
    return f.bottom() - f.height * (v - ys.low) / (ys.high - ys.low);
  };
  const double slot = f.width / std::max<size_t>(1, n);
  // Category labels under their bars; one that would touch its neighbour goes a row lower,
  // and one that fits on neither row is dropped.
  double rows = 1;
  for (size_t i = 0; i < n; ++i) {
    const double x = f.left + slot * (i + 0.5);
    if (c.text(chart.categories[i], x, f.bottom() + 16, kTickFont, TextAnchor::kMiddle, "tick"))
      continue;
    if (c.text(chart.categories[i], x, f.bottom() + 30, kTickFont, TextAnchor::kMiddle, "tick")) {
      rows = 2;
      continue;
    }
    c.layout.drop();
  }
  const double title_y = f.bottom() + 22 + 14 * rows;
  axis_titles(c, f, axis_title(chart.category.title, chart.category.unit), title_y,
              axis_title(chart.value.title, ys.unit));
  const double right =
      legend(c, f, chart.series, [&](std::ostream& out, double x, double y, size_t k) {
        out << "<rect x=\"" << num(x + 4) << "\" y=\"" << num(y - 6)
            << "\" width=\"14\" height=\"12\" "
            << "fill=\"" << kPalette[k % 10] << "\"/>\n";
      });
  const size_t groups = chart.stacked ? 1 : std::max<size_t>(1, chart.series.size());
  const double bar = slot * 0.7 / groups;
  for (size_t i = 0; i < n; ++i) {
    double base = 0;
    for (size_t k = 0; k < chart.series.size() && k < chart.values.size(); ++k) {
      const double v = i < chart.values[k].size() ? chart.values[k][i] : NAN;
      if (!std::isfinite(v) || v <= 0) continue;
      const double x = f.left + slot * i + slot * 0.15 + (chart.stacked ? 0 : bar * k);
      const double y0 = chart.stacked ? base : 0;
      char value[32];
      std::snprintf(value, sizeof value, "%.6g", v);
      c.body << "<rect class=\"bar\" x=\"" << num(x) << "\" y=\"" << num(py(y0 + v))
             << "\" width=\"" << num(bar) << "\" height=\"" << num(py(y0) - py(y0 + v))
             << "\" fill=\"" << kPalette[k % 10] << "\" data-tip=\""
             << tip_attribute(chart.categories[i] + " / " + chart.series[k] + ": " + value + " " +
                              chart.value.unit)
             << "\"/>\n";
      if (chart.stacked) base += v;
    }
  }
  return finish(c, chart.id, right + 10, title_y + 10);
}

std::string figure_html(const std::string& caption, const RenderedChart& chart) {
  std::string text = "<figure><figcaption>" + xml_escape(caption);
  if (chart.dropped_labels > 0) {
    text += " <small>(" + std::to_string(chart.dropped_labels) + " label" +
            (chart.dropped_labels == 1 ? "" : "s") +
            " left out to avoid overlaps; hover for "
            "values)</small>";
  }
  return text + "</figcaption>\n" + chart.svg + "</figure>\n";
}

}  // namespace scoville::output
