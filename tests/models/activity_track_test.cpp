// ActivityTrack: per-op spans from busy intervals, disjoint spans, window and cap.
#include <catch2/catch.hpp>

#include "models/activity/activity_track.hpp"

using scoville::Duration;
using scoville::models::ActivityTrack;
using scoville::models::ActivityWindow;

namespace {
Duration us(double v) { return Duration(v * 1e-6); }
}  // namespace

TEST_CASE("intervals of one op merge into one span with their busy time and bytes",
          "[models][activity]") {
  ActivityTrack track("tile 0", "tile", 1, ActivityWindow{});
  track.add(us(0), us(2), 0, 100);
  track.add(us(3), us(4), 0, 50);  // a stall of 1 us between blocks of op 0
  track.add(us(4), us(7), 1, 10);
  REQUIRE(track.spans().size() == 2);
  const auto& first = track.spans()[0];
  CHECK(first.start == us(0));
  CHECK(first.end == us(4));
  CHECK(first.merged == 2);
  CHECK(first.busy.si() == Approx((us(2) + us(1)).si()));
  CHECK(first.bytes == 150);
  CHECK(track.spans()[1].label == 1);
  CHECK(track.spans()[1].start == us(4));
}

TEST_CASE("channels sharing a track: out-of-order intervals widen the span, spans stay disjoint",
          "[models][activity]") {
  const int64_t channels = 2;
  ActivityTrack track("HBM stack 0", "hbm", channels, ActivityWindow{});
  track.add(us(1), us(3), 0, 64);
  track.add(us(0), us(2), 0, 64);  // the other channel started earlier
  REQUIRE(track.spans().size() == 1);
  CHECK(track.spans()[0].start == us(0));
  CHECK(track.spans()[0].end == us(3));
  // Op 1 on a channel still busy with op 0 until 3 us: its span starts where op 0's ends, and
  // an interval of op 1 reaching back before that counts only its part after it.
  track.add(us(2.5), us(5), 1, 64);
  track.add(us(2), us(4), 1, 64);
  REQUIRE(track.spans().size() == 2);
  const auto& second = track.spans()[1];
  CHECK(second.start == us(3));
  CHECK(second.end == us(5));
  CHECK(second.busy.si() == Approx((us(2) + us(1)).si()));  // (5 - 3) + (4 - 3)
  CHECK(second.busy.si() <= ((second.end - second.start) * static_cast<double>(channels)).si());
}

TEST_CASE("the window keeps overlapping intervals and the cap counts spans left out",
          "[models][activity]") {
  ActivityWindow window;
  window.start = us(10);
  window.end = us(20);
  window.max_spans = 2;
  ActivityTrack track("tile 1", "tile", 1, window);
  track.add(us(0), us(5), 0, 0);    // before the window
  track.add(us(8), us(11), 1, 0);   // reaches into it
  track.add(us(12), us(13), 2, 0);  // inside
  track.add(us(14), us(15), 3, 0);  // inside, past the cap
  track.add(us(15), us(16), 3, 0);  // the same op again: counted once
  track.add(us(16), us(17), 4, 0);  // past the cap
  track.add(us(20), us(21), 5, 0);  // after the window
  REQUIRE(track.spans().size() == window.max_spans);
  CHECK(track.spans()[0].label == 1);
  CHECK(track.spans()[1].label == 2);
  CHECK(track.dropped() == 2);
}
