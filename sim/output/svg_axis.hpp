// Axis scales of the SVG charts of `scoville report`: "nice" ticks (1, 2 or 5 x 10^k) and their
// labels, never in exponent form. A unit an SI prefix applies to (s, J, W, Hz, B, B/s, FLOP,
// FLOP/s) takes the prefix in the axis title ("time [ms]", ticks 0 2 4 6); any other unit keeps
// its title and the ticks carry the prefix ("40k", "1.5M") from ten thousand up, or thousands
// separators ("2,500") below.
#pragma once

#include <string>
#include <vector>

namespace scoville::output {

struct AxisScale {
  double low = 0, high = 1;         // the axis range: the first and last tick
  std::vector<double> ticks;        // in the data's unit
  std::vector<std::string> labels;  // one per tick
  std::string unit;                 // the unit the labels are in, prefix included ("ms")
};

// The step of at most `max_ticks` ticks covering [low, high] (a 1, 2 or 5 x 10^k).
double nice_step(double low, double high, int max_ticks);

// Ticks on multiples of nice_step covering [low, high]; `unit` is the data's unit as stored
// ("s", "1/s", "count", ...). A degenerate range is widened to show one value.
AxisScale make_axis_scale(double low, double high, const std::string& unit, int max_ticks);

// `value` with `decimals` decimals and thousands separators: 12,345.6.
std::string grouped_number(double value, int decimals);

// "title [unit]"; a unitless axis says what it counts: "title (count)", "title (ratio)", and a
// categorical one "title (category)".
std::string axis_title(const std::string& title, const std::string& unit);

}  // namespace scoville::output
