#include "sim/output/chip_ops_progress.hpp"

#include <iostream>
#include <numeric>

namespace scoville::output {

namespace {

// A person reads a line redrawn ten times a second as smooth; more only costs the terminal.
constexpr std::chrono::milliseconds kRedrawInterval{100};

// A chip given as a file (my/chip.yaml) is shown by its stem (chip).
std::vector<std::string> display_names(std::vector<std::string> chips) {
  for (std::string& c : chips) {
    const size_t slash = c.find_last_of('/');
    if (slash != std::string::npos) c = c.substr(slash + 1);
    const size_t dot = c.rfind(".yaml");
    if (dot != std::string::npos && dot + 5 == c.size() && dot > 0) c = c.substr(0, dot);
  }
  return chips;
}

}  // namespace

ChipOpsProgress::ChipOpsProgress(const std::string& what, std::vector<std::string> chips,
                                 bool quiet)
    : ChipOpsProgress(what, std::move(chips), progress_wanted_here(quiet), std::cerr, false) {}

ChipOpsProgress::ChipOpsProgress(const std::string& what, std::vector<std::string> chips, bool on,
                                 std::ostream& out, bool every_op)
    : what_(what + ": ops done"),
      chips_(display_names(std::move(chips))),
      done_(chips_.size(), 0),
      total_(chips_.size(), -1),
      on_(on),
      out_(&out),
      every_op_(every_op) {}

ChipOpsProgress::~ChipOpsProgress() { finish(); }

void ChipOpsProgress::ops_done(size_t chip, int64_t done, int64_t total) {
  if (!on_ || chip >= chips_.size()) return;
  done_[chip] = done;
  total_[chip] = total;
  const auto now = std::chrono::steady_clock::now();
  if (!reporter_) {
    for (int64_t t : total_) {
      if (t < 0) return;  // a chip not yet announced
    }
    reporter_ = std::make_unique<ProgressReporter>(
        what_, std::accumulate(total_.begin(), total_.end(), int64_t{0}), true, *out_);
    last_draw_ = now;
    return;
  }
  // Redrawn at most every kRedrawInterval, and when a chip finishes its program.
  if (!every_op_ && done != total && now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  reporter_->set_done(std::accumulate(done_.begin(), done_.end(), int64_t{0}), label());
}

std::string ChipOpsProgress::label() const {
  std::string text;
  for (size_t i = 0; i < chips_.size(); ++i) {
    text += (i ? ", " : "") + chips_[i] + " " + std::to_string(done_[i]) + "/" +
            std::to_string(total_[i]);
  }
  return text;
}

void ChipOpsProgress::finish() {
  if (reporter_) reporter_->finish();
  reporter_.reset();
  on_ = false;
}

}  // namespace scoville::output
