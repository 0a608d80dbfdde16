#include "sim/output/power_timeline_chart.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

namespace scoville::output {

namespace {

constexpr int kWidth = 640;
constexpr int kHeight = 260;
constexpr int kMargin = 50;

const Table* find(const H5Document& doc, const std::string& path) {
  for (const Table& t : doc.tables) {
    if (t.path == path) return &t;
  }
  return nullptr;
}

template <class T>
const std::vector<T>* values(const Table& t, const std::string& name) {
  for (const Column& c : t.columns) {
    if (c.name == name) return std::get_if<std::vector<T>>(&c.values);
  }
  return nullptr;
}

std::string fixed(double v, const char* format = "%.4g") {
  char b[32];
  std::snprintf(b, sizeof(b), format, v);
  return b;
}

// One polyline chart over [0, x_max] x [0, y_max]; `lines` are (colour, dashed, points).
struct Line {
  std::string colour;
  bool dashed = false;
  std::vector<std::pair<double, double>> points;
};

void chart(std::ostringstream& out, const std::string& id, const std::string& title,
           const std::string& unit, double x_max, double y_max, const std::vector<Line>& lines,
           const std::string& legend) {
  const int plot_w = kWidth - 2 * kMargin;
  const int plot_h = kHeight - 2 * kMargin;
  const auto px = [&](double x) { return kMargin + plot_w * x / x_max; };
  const auto py = [&](double y) { return kMargin + plot_h - plot_h * y / y_max; };
  out << "<figure><figcaption>" << title << "</figcaption><svg class=chart id=\"" << id
      << "\" width=" << kWidth << " height=" << kHeight + 20 << ">\n<text x=8 y=" << kMargin - 10
      << " class=axis>" << unit << "</text>";
  for (int t = 0; t <= 4; ++t) {
    out << "<line x1=" << kMargin << " x2=" << kMargin + plot_w << " y1=" << py(y_max * t / 4)
        << " y2=" << py(y_max * t / 4) << " class=grid /><text x=4 y=" << py(y_max * t / 4) + 4
        << " class=axis>" << fixed(y_max * t / 4, "%.3g")
        << "</text><text x=" << px(x_max * t / 4) - 10 << " y=" << kMargin + plot_h + 16
        << " class=axis>" << fixed(x_max * t / 4, "%.3g") << " s</text>";
  }
  for (const Line& line : lines) {
    out << "<polyline fill=none stroke=\"" << line.colour << "\""
        << (line.dashed ? " stroke-dasharray=\"6 4\"" : "") << " points=\"";
    for (const auto& [x, y] : line.points)
      out << fixed(px(x), "%.2f") << "," << fixed(py(y), "%.2f") << " ";
    out << "\"/>\n";
  }
  out << "</svg><div class=legend>" << legend << "</div></figure>\n";
}

std::string key(const std::string& colour, const std::string& name) {
  return "<span><i style=\"background:" + colour + "\"></i>" + name + "</span>";
}

}  // namespace

int render_power_timeline(std::ostringstream& out, const H5Document& doc, int first_id) {
  const Table* windows = find(doc, "/power_windows");
  const Table* clocks = find(doc, "/clock_timeline");
  if (!windows || !clocks) return 0;
  const auto* w_chip = values<std::string>(*windows, "chip");
  const auto* w_it = values<int64_t>(*windows, "iteration");
  const auto* w_start = values<double>(*windows, "start_s");
  const auto* w_len = values<double>(*windows, "window_s");
  const auto* w_avg = values<double>(*windows, "avg_power_W");
  const auto* w_peak = values<double>(*windows, "peak_power_W");
  const auto* w_cap = values<double>(*windows, "power_cap_W");
  const auto* c_chip = values<std::string>(*clocks, "chip");
  const auto* c_it = values<int64_t>(*clocks, "iteration");
  const auto* c_start = values<double>(*clocks, "start_s");
  const auto* c_end = values<double>(*clocks, "end_s");
  const auto* c_f = values<double>(*clocks, "frequency_Hz");
  if (!w_chip || !w_it || !w_start || !w_len || !w_avg || !w_peak || !w_cap || !c_chip || !c_it ||
      !c_start || !c_end || !c_f) {
    return 0;
  }
  std::vector<std::string> chips;
  for (const std::string& c : *w_chip) {
    if (std::find(chips.begin(), chips.end(), c) == chips.end()) chips.push_back(c);
  }
  int drawn = 0;
  for (const std::string& chip : chips) {
    Line average{"#4e79a7", false, {}}, peak{"#bab0ac", false, {}}, cap{"#e15759", true, {}};
    double x_max = 0, y_max = 0, cap_w = 0;
    for (size_t r = 0; r < w_chip->size(); ++r) {
      if ((*w_chip)[r] != chip || (*w_it)[r] != 0) continue;
      const double from = (*w_start)[r], to = from + (*w_len)[r];
      average.points.push_back({from, (*w_avg)[r]});
      average.points.push_back({to, (*w_avg)[r]});
      peak.points.push_back({from, (*w_peak)[r]});
      peak.points.push_back({to, (*w_peak)[r]});
      x_max = std::max(x_max, to);
      y_max = std::max({y_max, (*w_peak)[r], (*w_cap)[r]});
      cap_w = (*w_cap)[r];
    }
    if (average.points.empty() || x_max <= 0 || y_max <= 0) continue;
    cap.points = {{0, cap_w}, {x_max, cap_w}};
    chart(out, "chart-power-" + std::to_string(first_id + drawn++),
          chip + ": power per controller window, first iteration", "W", x_max, y_max * 1.05,
          {peak, average, cap},
          key("#4e79a7", "window average") + key("#bab0ac", "highest op in window") +
              key("#e15759", "cap " + fixed(cap_w) + " W"));
    Line clock{"#59a14f", false, {}};
    double f_max = 0;
    for (size_t r = 0; r < c_chip->size(); ++r) {
      if ((*c_chip)[r] != chip || (*c_it)[r] != 0) continue;
      clock.points.push_back({(*c_start)[r], (*c_f)[r] / 1e9});
      clock.points.push_back({(*c_end)[r], (*c_f)[r] / 1e9});
      f_max = std::max(f_max, (*c_f)[r] / 1e9);
    }
    if (clock.points.empty() || f_max <= 0) continue;
    chart(out, "chart-clock-" + std::to_string(first_id + drawn++),
          chip + ": tile clock, first iteration", "GHz", x_max, f_max * 1.05, {clock},
          key("#59a14f", "tile clock"));
  }
  return drawn;
}

}  // namespace scoville::output
