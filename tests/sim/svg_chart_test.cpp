// The report's SVG chart module: nice ticks with readable labels, text boxes and the layout
// that drops colliding labels, and charts whose texts carry what tools/check-figures reads.
#include <catch2/catch.hpp>
#include <regex>
#include <string>

#include "sim/output/svg_axis.hpp"
#include "sim/output/svg_chart.hpp"
#include "sim/output/svg_text.hpp"

using namespace scoville::output;

TEST_CASE("svg axis: ticks are 1 2 or 5 times a power of ten and labels are never exponents",
          "[output][svg]") {
  CHECK(nice_step(0, 40400, 6) == 10000);
  CHECK(nice_step(0, 7, 8) == 1);
  CHECK(nice_step(0, 0.013, 6) == Approx(0.005));
  const AxisScale tput = make_axis_scale(0, 40400, "tok/s", 6);
  CHECK(tput.labels.front() == "0");
  CHECK(tput.labels.back() == "50k");
  CHECK(tput.unit == "tok/s");
  const AxisScale time = make_axis_scale(0, 0.0213, "s", 6);
  CHECK(time.unit == "ms");
  CHECK(time.labels.back() == "25");
  const AxisScale clock = make_axis_scale(0, 1.83e9, "Hz", 6);
  CHECK(clock.unit == "GHz");
  CHECK(clock.labels[1] == "0.5");
  CHECK(make_axis_scale(0, 6200, "tok/s", 6).labels.back() == "8,000");
  for (double high : {3e-7, 0.02, 4.04e4, 7.7e7, 3e12}) {
    for (const std::string& label : make_axis_scale(0, high, "1/s", 7).labels) {
      CHECK_FALSE(std::regex_search(label, std::regex("[0-9][eE][-+]?[0-9]")));
    }
  }
  CHECK(grouped_number(-1234567.5, 1) == "-1,234,567.5");
  CHECK(axis_title("power", "W") == "power [W]");
  CHECK(axis_title("batch", "count") == "batch (count)");
  CHECK(axis_title("phase", "") == "phase (category)");
}

TEST_CASE("svg text: boxes follow the anchor and the layout refuses overlapping text",
          "[output][svg]") {
  const Box start = text_box("abc", 100, 50, 10, TextAnchor::kStart);
  const Box end = text_box("abc", 100, 50, 10, TextAnchor::kEnd);
  CHECK(start.left == 100);
  CHECK(end.right == 100);
  CHECK(start.right - start.left == Approx(3 * 0.64 * 10));
  const Box up = text_box("abc", 10, 100, 10, TextAnchor::kMiddle, true);
  CHECK(up.bottom - up.top == Approx(3 * 0.64 * 10));
  TextLayout layout;
  CHECK(layout.place(start));
  CHECK_FALSE(layout.place(text_box("abc", 105, 52, 10, TextAnchor::kStart)));
  CHECK(layout.place(text_box("abc", 105, 80, 10, TextAnchor::kStart)));
}

TEST_CASE("svg chart: titles with units and labels that collide are dropped and counted",
          "[output][svg]") {
  XYChart chart;
  chart.id = "t";
  chart.x = {"interactivity", "tok/s/user"};
  chart.y = {"throughput per chip", "tok/s"};
  XYSeries a{"a.h5", {10, 10.01, 10.02, 300}, {40400, 40400, 40401, 100}, {}, {}, {}, true, false,
             {}};
  a.labels = {"c=1", "c=2", "c=4", "c=64"};
  XYSeries b = a;
  b.name = "b.h5";
  chart.series = {a, b};
  const RenderedChart r = render_chart(chart);
  CHECK_THAT(r.svg, Catch::Contains("class=\"x-title\""));
  CHECK_THAT(r.svg, Catch::Contains(">interactivity [tok/s/user]</text>"));
  CHECK_THAT(r.svg, Catch::Contains(">throughput per chip [tok/s]</text>"));
  CHECK_THAT(r.svg, Catch::Contains(">50k</text>"));
  // Six of the eight labels sit on three points (twice over): at most four places each.
  CHECK(r.dropped_labels > 0);
  CHECK_THAT(r.svg, Catch::Contains("data-dropped-labels=\"" + std::to_string(r.dropped_labels)));
  CHECK_THAT(figure_html("x", r), Catch::Contains("left out to avoid overlaps"));
  // The two series have different marker shapes: a circle and a path.
  CHECK_THAT(r.svg, Catch::Contains("<circle"));
  CHECK_THAT(r.svg, Catch::Contains("class=\"point series-1\""));
}
