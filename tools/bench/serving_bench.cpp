// Serving sweep benchmark (not a test): the InferenceX 8K/1K sweep of GPT-OSS 120B, concurrency
// 1 to 1,024 in powers of two with 10 x N requests each, through `scoville inferencex` exactly as
// a user runs it (roofline fidelity). Prints the wall time and the peak resident memory.
//   build/release/tools/bench/scoville_serving_bench [--software NAME]
// The chip is the system's own GB200 (arch/chips/gb200.yaml), with its calibration overlay.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/command_table.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args = {"inferencex",
                                   "--system",
                                   "gb200-nvl72",
                                   "--model",
                                   "gpt-oss-120b",
                                   "--isl",
                                   "8192",
                                   "--osl",
                                   "1024",
                                   "--tp",
                                   "8",
                                   "--ep",
                                   "8",
                                   "--quiet",
                                   "--concurrency",
                                   "1,2,4,8,16,32,64,128,256,512,1024"};
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  std::ostringstream out;
  const auto start = std::chrono::steady_clock::now();
  const int rc = scoville::cli::dispatch(args, argc, argv, out);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("%s", out.str().c_str());
  std::printf("# serving bench: exit %d, wall %.2f s, cpu %.2f s, peak RSS %.0f MiB\n", rc, wall,
              static_cast<double>(usage.ru_utime.tv_sec) +
                  static_cast<double>(usage.ru_utime.tv_usec) * 1e-6,
              static_cast<double>(usage.ru_maxrss) / 1024.0);
  return rc;
}
