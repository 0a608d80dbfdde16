#include "sim/output/power_timeline_chart.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include "sim/output/svg_chart.hpp"

namespace scoville::output {

namespace {

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

std::string fixed(double v) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.4g", v);
  return b;
}

// A step line over time (no markers: the windows are contiguous).
XYSeries line(const std::string& name, bool dashed = false) {
  XYSeries s;
  s.name = name;
  s.markers = false;
  s.dashed = dashed;
  return s;
}

void add_step(XYSeries& s, double from, double to, double value) {
  s.xs.push_back(from);
  s.ys.push_back(value);
  s.line.push_back(s.xs.size() - 1);
  s.xs.push_back(to);
  s.ys.push_back(value);
  s.line.push_back(s.xs.size() - 1);
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
    XYSeries peak = line("highest op in window"), average = line("window average");
    double x_max = 0, cap_w = 0;
    for (size_t r = 0; r < w_chip->size(); ++r) {
      if ((*w_chip)[r] != chip || (*w_it)[r] != 0) continue;
      const double from = (*w_start)[r], to = from + (*w_len)[r];
      add_step(average, from, to, (*w_avg)[r]);
      add_step(peak, from, to, (*w_peak)[r]);
      x_max = std::max(x_max, to);
      cap_w = (*w_cap)[r];
    }
    if (average.xs.empty() || x_max <= 0) continue;
    XYSeries cap = line("cap " + fixed(cap_w) + " W", true);
    add_step(cap, 0, x_max, cap_w);
    XYChart power;
    power.id = "chart-power-" + std::to_string(first_id + drawn++);
    power.x = {"time from iteration start", "s"};
    power.y = {"power", "W"};
    power.series = {average, peak, cap};
    out << figure_html(chip + ": power per controller window, first iteration",
                       render_chart(power));
    XYSeries clock = line("tile clock");
    for (size_t r = 0; r < c_chip->size(); ++r) {
      if ((*c_chip)[r] != chip || (*c_it)[r] != 0) continue;
      add_step(clock, (*c_start)[r], (*c_end)[r], (*c_f)[r]);
    }
    if (clock.xs.empty()) continue;
    XYChart clock_chart;
    clock_chart.id = "chart-clock-" + std::to_string(first_id + drawn++);
    clock_chart.x = {"time from iteration start", "s"};
    clock_chart.y = {"tile clock", "Hz"};
    clock_chart.series = {clock};
    out << figure_html(chip + ": tile clock, first iteration", render_chart(clock_chart));
  }
  return drawn;
}

}  // namespace scoville::output
