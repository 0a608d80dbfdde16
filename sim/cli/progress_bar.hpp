// A progress bar on stderr for the serving sweeps, drawn only on a terminal.
#pragma once

#include <cstdint>
#include <string>

namespace scoville::cli {

// A progress bar on stderr, only when stderr is a terminal and not quiet.
class Progress {
 public:
  Progress(int64_t total, bool quiet);
  void step(const std::string& label);
  ~Progress();

 private:
  int64_t total_;
  int64_t done_ = 0;
  bool on_ = false;
};

}  // namespace scoville::cli
