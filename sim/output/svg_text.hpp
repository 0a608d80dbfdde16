// Text in the SVG charts of `scoville report`: an estimate of the box a string takes, and a
// layout that places boxes only where they overlap no box placed before (a label that would
// collide is moved by its caller or dropped, and the drops are counted). tools/check-figures
// estimates boxes the same way (docs/results-format.md, "Checking figures"), so a chart that
// placed its text here passes that check.
#pragma once

#include <string>
#include <vector>

namespace scoville::output {

// Horizontal anchor of an SVG <text> (its text-anchor attribute).
enum class TextAnchor { kStart, kMiddle, kEnd };

const char* to_string(TextAnchor anchor);

// Width of `text` in px at `font_px`, from per-character widths of DejaVu Sans (the widest of
// the common sans-serif fonts, so narrower fonts only leave more room): see the .cpp.
double text_width_px(const std::string& text, double font_px);

struct Box {
  double left = 0, top = 0, right = 0, bottom = 0;
  bool overlaps(const Box& other) const;
};

// The box of a text drawn at (x, y) (y the baseline) with `anchor`: from 0.8 em above the
// baseline to 0.25 em below it; `rotated` is a -90 degree rotation about (x, y).
Box text_box(const std::string& text, double x, double y, double font_px, TextAnchor anchor,
             bool rotated = false);

// Boxes placed so far in one chart. Obstacles (markers, the plot frame's ticks) block text but
// are not text themselves.
class TextLayout {
 public:
  // True, and the box is kept, when it overlaps nothing placed before.
  bool place(const Box& box);
  bool fits(const Box& box) const;
  void block(const Box& obstacle) { placed_.push_back(obstacle); }
  // Counts a label its caller could not place anywhere.
  void drop() { ++dropped_; }
  int dropped() const { return dropped_; }

 private:
  std::vector<Box> placed_;
  int dropped_ = 0;
};

// `s` with &, <, >, " escaped for XML text and attribute values.
std::string xml_escape(const std::string& s);

}  // namespace scoville::output
