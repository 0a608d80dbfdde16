// What one hardware unit (a compute tile, an HBM channel or stack, a link) did, for timelines:
// one span per op it worked on, from the first to the last of the intervals it was busy on that
// op, with the busy time and bytes inside. Recording is optional and only observes: modules hold
// a null track pointer unless a trace was asked for, so results do not depend on it. Memory stays
// bounded: intervals outside the window are not kept, consecutive intervals of one op merge into
// one span, and past `max_spans` new spans are only counted (the first ones in the window are
// kept, so what is shown is exact up to the cap).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/units.hpp"

namespace scoville::models {

struct ActivitySpan {
  Duration start;
  Duration end;
  int64_t label = -1;  // what the unit worked on: the op's index in the chip's program
  int64_t merged = 1;  // intervals merged into this span (compute blocks, memory requests)
  Duration busy;       // sum of the merged intervals' lengths (over all units of the track)
  double bytes = 0;    // bytes moved by the merged intervals
};

struct ActivityWindow {
  Duration start;
  Duration end = Duration(1e300);
  size_t max_spans = 5000;  // per track
};

class ActivityTrack {
 public:
  // `units`: how many units share the track (channels of an HBM stack), so that busy / (span
  // length x units) is their average utilisation.
  ActivityTrack(std::string name, std::string kind, int64_t units, const ActivityWindow& window)
      : name_(std::move(name)), kind_(std::move(kind)), units_(units), window_(window) {}

  // Adds the busy interval [start, end) spent on `label`. Labels must not decrease from call to
  // call (ops run in program order). An interval of the last span's label extends it; one of a
  // new label starts a new span, no earlier than the last span ends, so spans never overlap.
  void add(Duration start, Duration end, int64_t label, double bytes);

  const std::string& name() const { return name_; }
  const std::string& kind() const { return kind_; }  // "tile", "hbm", "link"
  int64_t units() const { return units_; }
  const std::vector<ActivitySpan>& spans() const { return spans_; }
  // Spans not kept because the track was full.
  int64_t dropped() const { return dropped_; }

 private:
  std::string name_;
  std::string kind_;
  int64_t units_;
  ActivityWindow window_;
  std::vector<ActivitySpan> spans_;
  int64_t dropped_ = 0;
  int64_t dropped_label_ = -1;  // the label of the last dropped span (counted once)
};

}  // namespace scoville::models
