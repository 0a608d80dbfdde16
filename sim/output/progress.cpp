#include "sim/output/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <utility>

namespace scoville::output {
namespace {

constexpr int kBarWidth = 30;
constexpr const char* kClearToEnd = "\033[K";  // ANSI EL: erase to the end of the line

}  // namespace

bool progress_wanted(bool stderr_is_terminal, const char* term, bool quiet) {
  if (quiet || !stderr_is_terminal) return false;
  return term == nullptr || std::strcmp(term, "dumb") != 0;
}

bool progress_wanted_here(bool quiet) {
  return progress_wanted(isatty(STDERR_FILENO) == 1, std::getenv("TERM"), quiet);
}

std::string format_eta(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto s = static_cast<long long>(std::llround(seconds));
  char b[48];
  if (s < 60) {
    std::snprintf(b, sizeof b, "%lld s", s);
  } else if (s < 3600) {
    std::snprintf(b, sizeof b, "%lld min %02lld s", s / 60, s % 60);
  } else {
    std::snprintf(b, sizeof b, "%lld h %02lld min", s / 3600, (s % 3600) / 60);
  }
  return b;
}

std::string progress_line(const std::string& what, int64_t done, int64_t total, double elapsed_s,
                          const std::string& label, size_t columns) {
  if (total <= 0) {  // an open-ended count (e.g. a fit's evaluations): no bar, no time left
    std::string line = what + ": " + std::to_string(done) + " done";
    if (!label.empty()) line += ": " + label;
    if (line.size() > columns) line = line.substr(0, columns > 3 ? columns - 3 : 0) + "...";
    return line;
  }
  const double fraction =
      total > 0 ? std::min(1.0, static_cast<double>(done) / static_cast<double>(total)) : 1.0;
  const int filled = static_cast<int>(std::floor(fraction * kBarWidth));
  std::string line = what + " [" + std::string(static_cast<size_t>(filled), '#') +
                     std::string(static_cast<size_t>(kBarWidth - filled), '.') + "] " +
                     std::to_string(done) + "/" + std::to_string(total) + " (" +
                     std::to_string(static_cast<int>(std::floor(100.0 * fraction))) + "%)";
  // The time left at the rate so far: elapsed x (total - done) / done.
  const double left =
      done > 0 ? elapsed_s * static_cast<double>(total - done) / static_cast<double>(done)
               : std::nan("");
  line += " " + format_eta(left) + " left";
  if (!label.empty()) line += ": " + label;
  if (line.size() > columns) line = line.substr(0, columns > 3 ? columns - 3 : 0) + "...";
  return line;
}

ProgressReporter::ProgressReporter(std::string what, int64_t total, bool quiet)
    : ProgressReporter(std::move(what), total, progress_wanted_here(quiet), std::cerr) {}

ProgressReporter::ProgressReporter(std::string what, int64_t total, bool on, std::ostream& out)
    : what_(std::move(what)),
      total_(total),
      on_(on),
      out_(out),
      start_(std::chrono::steady_clock::now()) {
  draw();
}

ProgressReporter::~ProgressReporter() { finish(); }

void ProgressReporter::finish() {
  clear();
  on_ = false;
}

void ProgressReporter::step(const std::string& label) {
  ++done_;
  label_ = label;
  draw();
}

void ProgressReporter::set_done(int64_t done, const std::string& label) {
  done_ = done;
  label_ = label;
  draw();
}

void ProgressReporter::print(std::ostream& out, const std::string& line) {
  clear();
  out << line << "\n" << std::flush;
  draw();
}

void ProgressReporter::draw() {
  if (!on_) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  out_ << "\r" << progress_line(what_, done_, total_, elapsed, label_) << kClearToEnd << std::flush;
}

void ProgressReporter::clear() {
  if (on_) out_ << "\r" << kClearToEnd << std::flush;
}

}  // namespace scoville::output
