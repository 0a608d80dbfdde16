// Progress of a long command on a terminal: points, rows or iterations done out of a total, the
// estimated time left, and what the last one was, redrawn on one line of stderr. Only where a
// person is looking: stderr is a terminal, TERM is not "dumb" and --quiet was not given; pipes,
// files and CI logs get nothing (results never depend on it).
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace scoville::output {

// The decision, as a pure function of what the caller knows.
bool progress_wanted(bool stderr_is_terminal, const char* term, bool quiet);
// The decision for this process (isatty(2), $TERM).
bool progress_wanted_here(bool quiet);

// "42 s", "3 min 05 s", "2 h 07 min"; "?" before anything is done.
std::string format_eta(double seconds);

// The line: "what [#########.....................] 3/8 (38%) 1 min 12 s left: batch=16",
// cut to `columns` characters. `elapsed_s` is the time since the first of `total` began. A total
// of 0 is an open-ended count: "what: 3 done: label".
std::string progress_line(const std::string& what, int64_t done, int64_t total, double elapsed_s,
                          const std::string& label, size_t columns = 100);

class ProgressReporter {
 public:
  // `what` names the work ("sweep", "validate"); `total` units of it.
  ProgressReporter(std::string what, int64_t total, bool quiet);
  // For tests: draws to `out` when `on`.
  ProgressReporter(std::string what, int64_t total, bool on, std::ostream& out);
  ~ProgressReporter();
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  // One more done; `label` says which (e.g. the point's axis values).
  void step(const std::string& label);
  // `done` done in all (for work counted in bulk, e.g. ops of several chips); `label` says what.
  void set_done(int64_t done, const std::string& label);
  // A line of the command's own output, written past the progress line (which is then redrawn),
  // so that the two do not overwrite each other on one terminal.
  void print(std::ostream& out, const std::string& line);
  // Clears the line for good, before the command prints its results.
  void finish();
  bool on() const { return on_; }
  int64_t done() const { return done_; }

 private:
  void draw();
  void clear();

  std::string what_;
  int64_t total_;
  int64_t done_ = 0;
  bool on_;
  std::ostream& out_;
  std::string label_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace scoville::output
