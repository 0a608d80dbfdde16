#include "sim/cli/progress_bar.hpp"

#include <unistd.h>

#include <iostream>

namespace scoville::cli {

Progress::Progress(int64_t total, bool quiet)
    : total_(total), on_(!quiet && isatty(STDERR_FILENO) == 1) {}

void Progress::step(const std::string& label) {
  ++done_;
  if (!on_) return;
  const int width = 30;
  const int filled = total_ > 0 ? static_cast<int>(width * done_ / total_) : width;
  std::cerr << "\r[" << std::string(static_cast<size_t>(filled), '#')
            << std::string(static_cast<size_t>(width - filled), '.') << "] " << done_ << "/"
            << total_ << " " << label << "\033[K" << std::flush;
}

Progress::~Progress() {
  if (on_) std::cerr << "\r\033[K" << std::flush;
}

}  // namespace scoville::cli
