#include "sim/output/plan_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace scoville::output {

namespace {

constexpr int kWidth = 700, kHeight = 340, kLeft = 84, kRight = 84, kTop = 20, kBottom = 50;

std::string escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '"') {
      out += "&quot;";
    } else {
      out += c;
    }
  }
  return out;
}

std::string tick(double v) {
  char b[32];
  std::snprintf(b, sizeof b, v >= 100 ? "%.0f" : "%.3g", v);
  return b;
}

// A round step (1, 2 or 5 x 10^k) that cuts [0, max] into about four parts.
double round_step(double max) {
  const double raw = max / 4;
  const double unit = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * unit >= raw) return m * unit;
  }
  return 10 * unit;
}

std::vector<double> numbers(const Table& t, const std::string& name) {
  for (const Column& c : t.columns) {
    if (c.name != name) continue;
    if (const auto* d = std::get_if<std::vector<double>>(&c.values)) return *d;
    if (const auto* i = std::get_if<std::vector<int64_t>>(&c.values)) {
      return std::vector<double>(i->begin(), i->end());
    }
  }
  return {};
}

std::vector<std::string> strings(const Table& t, const std::string& name) {
  for (const Column& c : t.columns) {
    if (c.name != name) continue;
    if (const auto* s = std::get_if<std::vector<std::string>>(&c.values)) return *s;
  }
  return {};
}

}  // namespace

bool render_plan_chart(std::ostringstream& out, const H5Document& doc, const std::string& name) {
  const Table* plan = nullptr;
  for (const Table& t : doc.tables) {
    if (t.path == "/plan") plan = &t;
  }
  if (!plan) return false;
  const std::vector<double> x = numbers(*plan, "intvty"), y = numbers(*plan, "goodput_per_chip"),
                            kw = numbers(*plan, "goodput_per_kw_tdp"),
                            meets = numbers(*plan, "meets"), pareto = numbers(*plan, "pareto");
  const std::vector<std::string> mapping = strings(*plan, "mapping"), load = strings(*plan, "load");
  const std::vector<double> batch = numbers(*plan, "max_batch");
  const size_t n = x.size();
  if (n == 0 || y.size() != n || kw.size() != n || meets.size() != n || pareto.size() != n ||
      mapping.size() != n || load.size() != n || batch.size() != n) {
    return false;
  }
  double max_x = 0, max_y = 0, kw_per_chip = 0;
  for (size_t i = 0; i < n; ++i) {
    max_x = std::max(max_x, x[i]);
    max_y = std::max(max_y, y[i]);
    if (y[i] > 0) kw_per_chip = kw[i] / y[i];  // 1000 / TDP, the same for every row
  }
  max_x = max_x > 0 ? max_x * 1.05 : 1;
  max_y = max_y > 0 ? max_y * 1.05 : 1;
  const int w = kWidth - kLeft - kRight, h = kHeight - kTop - kBottom;
  auto px = [&](double v) { return kLeft + w * v / max_x; };
  auto py = [&](double v) { return kTop + h - h * v / max_y; };
  out << "<h2>Plan: goodput against interactivity</h2><figure><figcaption>" << escaped(name)
      << ": goodput per chip and per kW of TDP against interactivity; filled: meets the "
         "latency limits, hollow: misses them; the line is the Pareto frontier</figcaption>"
      << "<svg class=chart id=plan width=" << kWidth << " height=" << kHeight << ">\n";
  out << "<rect x=" << kLeft << " y=" << kTop << " width=" << w << " height=" << h
      << " fill=none stroke=\"#ccc\"/>";
  const double step_x = round_step(max_x), step_y = round_step(max_y);
  for (double vy = 0; vy <= max_y; vy += step_y) {
    out << "<text x=" << kLeft - 6 << " y=" << py(vy) + 4 << " class=axis text-anchor=end>"
        << tick(vy) << "</text>";
  }
  if (kw_per_chip > 0) {
    const double step_kw = round_step(max_y * kw_per_chip);
    for (double v = 0; v <= max_y * kw_per_chip; v += step_kw) {
      out << "<text x=" << kLeft + w + 6 << " y=" << py(v / kw_per_chip) + 4 << " class=axis>"
          << tick(v) << "</text>";
    }
  }
  for (double vx = 0; vx <= max_x; vx += step_x) {
    out << "<text x=" << px(vx) << " y=" << kTop + h + 16 << " class=axis text-anchor=middle>"
        << tick(vx) << "</text>";
  }
  out << "<text x=" << kLeft + w / 2 << " y=" << kHeight - 8
      << " class=axis text-anchor=middle>interactivity [tok/s/user]</text>"
      << "<text transform=\"translate(14," << kTop + h / 2
      << ") rotate(-90)\" class=axis text-anchor=middle>goodput per chip [tok/s]</text>";
  if (kw_per_chip > 0) {
    out << "<text transform=\"translate(" << kWidth - 10 << "," << kTop + h / 2
        << ") rotate(90)\" class=axis text-anchor=middle>goodput per kW TDP [tok/s/kW]</text>";
  }
  std::vector<size_t> frontier;
  for (size_t i = 0; i < n; ++i) {
    if (pareto[i] != 0) frontier.push_back(i);
  }
  std::sort(frontier.begin(), frontier.end(), [&](size_t a, size_t b) { return x[a] < x[b]; });
  out << "<polyline fill=none stroke=\"#4e79a7\" points=\"";
  for (size_t i : frontier) out << px(x[i]) << "," << py(y[i]) << " ";
  out << "\"/>\n";
  for (size_t i = 0; i < n; ++i) {
    const bool ok = meets[i] != 0;
    out << "<circle class=point cx=" << px(x[i]) << " cy=" << py(y[i]) << " r=4 fill=\""
        << (ok ? "#4e79a7" : "none") << "\" stroke=\"" << (ok ? "#4e79a7" : "#999")
        << "\" data-tip=\"" << escaped(mapping[i]) << " max_batch " << tick(batch[i]) << " load "
        << escaped(load[i]) << "&#10;goodput/chip " << tick(y[i]) << " tok/s&#10;intvty "
        << tick(x[i]) << " tok/s/user" << (ok ? "" : "&#10;misses the limits") << "\"/>";
  }
  out << "</svg></figure>\n";
  return true;
}

}  // namespace scoville::output
