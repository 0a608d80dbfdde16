#include "models/activity/activity_track.hpp"

#include <algorithm>

namespace scoville::models {

void ActivityTrack::add(Duration start, Duration end, int64_t label, double bytes) {
  // Same overlap rule as the trace writer's window: kept when it reaches into [start, end).
  if (end < start || end < window_.start || start >= window_.end) return;
  if (!spans_.empty() && spans_.back().label == label) {
    ActivitySpan& last = spans_.back();
    // Intervals of several channels of one stack arrive out of order; never reach back before
    // the previous span's end.
    const Duration floor = spans_.size() > 1 ? spans_[spans_.size() - 2].end : Duration();
    start = std::max(start, floor);
    last.start = std::min(last.start, start);
    last.end = std::max(last.end, end);
    last.merged += 1;
    last.busy += std::max(end - start, Duration());  // only the part inside the span
    last.bytes += bytes;
    return;
  }
  if (spans_.size() >= window_.max_spans) {
    if (label != dropped_label_) ++dropped_;
    dropped_label_ = label;
    return;
  }
  if (!spans_.empty()) start = std::max(start, spans_.back().end);
  end = std::max(end, start);
  spans_.push_back(ActivitySpan{start, end, label, 1, end - start, bytes});
}

}  // namespace scoville::models
