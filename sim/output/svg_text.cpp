#include "sim/output/svg_text.hpp"

namespace scoville::output {

namespace {

// Advance widths in em, grouped from DejaVu Sans's metrics (i, l: 0.28; f, r, t, space and
// brackets: 0.32-0.41; digits: 0.64; most lower case: 0.52-0.63; upper case: 0.63-0.78;
// m, w, M, W, %: 0.82-0.99). Each group takes its widest member, so the estimate is at or
// above what DejaVu Sans draws. A character beyond ASCII counts as 0.65 em (UTF-8 continuation
// bytes count nothing).
double char_em(unsigned char c) {
  if ((c & 0xC0) == 0x80) return 0.0;
  if (c >= 0x80) return 0.65;
  switch (c) {
    case 'i':
    case 'l':
    case 'j':
    case 'I':
    case '.':
    case ',':
    case ':':
    case ';':
    case '\'':
    case '|':
    case '!':
      return 0.34;
    case 'f':
    case 'r':
    case 't':
    case ' ':
    case '(':
    case ')':
    case '[':
    case ']':
    case '/':
    case '-':
      return 0.42;
    case 'm':
    case 'w':
    case 'M':
    case 'W':
    case '%':
    case '@':
      return 1.0;
    default:
      break;
  }
  if (c >= '0' && c <= '9') return 0.64;
  if (c >= 'A' && c <= 'Z') return 0.78;
  return 0.64;
}

}  // namespace

const char* to_string(TextAnchor anchor) {
  switch (anchor) {
    case TextAnchor::kStart:
      return "start";
    case TextAnchor::kMiddle:
      return "middle";
    case TextAnchor::kEnd:
      return "end";
  }
  return "start";
}

double text_width_px(const std::string& text, double font_px) {
  double em = 0;
  for (char c : text) em += char_em(static_cast<unsigned char>(c));
  return em * font_px;
}

bool Box::overlaps(const Box& o) const {
  return left < o.right && o.left < right && top < o.bottom && o.top < bottom;
}

Box text_box(const std::string& text, double x, double y, double font_px, TextAnchor anchor,
             bool rotated) {
  const double width = text_width_px(text, font_px);
  double from = 0;  // offset of the start of the text along its direction
  if (anchor == TextAnchor::kMiddle) from = -width / 2;
  if (anchor == TextAnchor::kEnd) from = -width;
  const double above = 0.8 * font_px, below = 0.25 * font_px;
  if (!rotated) return {x + from, y - above, x + from + width, y + below};
  // Rotated by -90 degrees about (x, y): the text runs upwards, its top faces left.
  return {x - above, y - from - width, x + below, y - from};
}

bool TextLayout::fits(const Box& box) const {
  for (const Box& b : placed_) {
    if (b.overlaps(box)) return false;
  }
  return true;
}

bool TextLayout::place(const Box& box) {
  if (!fits(box)) return false;
  placed_.push_back(box);
  return true;
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace scoville::output
