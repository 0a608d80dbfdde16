// `scoville run -o out.h5` killed with SIGKILL at points spread over a run (deterministic seed)
// leaves out.h5 holding a complete file: the previous one or a new one, never a torn one. A
// killed run cannot clean up; what it may leave is its own temporary "out.h5.tmp.<pid>" (named
// by sim/output/atomic_file.hpp, ignored by .gitignore's *.h5.tmp*), and nothing else.
#include <catch2/catch.hpp>

#include <H5Cpp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/test_support.hpp"

using scoville::test::TempDir;

namespace fs = std::filesystem;

namespace {

constexpr int kKillPoints = 20;
constexpr int kMaxAttempts = 2 * kKillPoints;  // more points while too few runs were cut
constexpr int kTimingRuns = 3;
constexpr uint64_t kKillSeed = 20261129;
constexpr int64_t kPreviousSeed = 1000;  // the seed of the complete file written first

// Starts `scoville run ... --seed <seed> -o <out>` with its output discarded; returns its pid.
pid_t start_run(const std::string& out, int64_t seed) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string binary = scoville::test::scoville_binary();
    const std::string seed_text = std::to_string(seed);
    if (freopen("/dev/null", "w", stdout) == nullptr ||
        freopen("/dev/null", "w", stderr) == nullptr)
      _exit(127);
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    execl(binary.c_str(), binary.c_str(), "run", "--chip", "h200", "--model", "llama-3.1-8b",
          "--batch", "1", "--isl", "16", "--osl", "1", "--seed", seed_text.c_str(), "-o",
          out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

// The seed recorded in a complete results file; fails the test if the file cannot be read whole.
int64_t seed_of_complete_file(const std::string& path) {
  H5::Exception::dontPrint();
  H5::H5File file(path, H5F_ACC_RDONLY);
  int64_t seed = -1;
  file.openGroup("/").openAttribute("seed").read(H5::PredType::NATIVE_INT64, &seed);
  // A table column read to the end: the data, not only the header, is there.
  const H5::DataSet energy = file.openDataSet("/summary/energy_J");
  std::vector<double> values(static_cast<size_t>(energy.getSpace().getSimpleExtentNpoints()));
  energy.read(values.data(), H5::PredType::NATIVE_DOUBLE);
  REQUIRE_FALSE(values.empty());
  return seed;
}

}  // namespace

TEST_CASE("output: a run killed at any point leaves the old or the new complete file",
          "[output][kill]") {
  TempDir dir("kill");
  const std::string out = dir.file("out.h5");

  // The run's length: the shortest of a few complete runs (the first one of a process tree
  // pays for cold caches, and a busy machine slows single runs; an estimate that is too long
  // lets runs finish before their kill).
  double run_seconds = 0;
  for (int i = 0; i < kTimingRuns; ++i) {
    const auto started = std::chrono::steady_clock::now();
    const int first = wait_for(start_run(out, kPreviousSeed));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    run_seconds = i == 0 ? seconds : std::min(run_seconds, seconds);
    REQUIRE(WIFEXITED(first));
    REQUIRE(WEXITSTATUS(first) == 0);
  }
  REQUIRE(seed_of_complete_file(out) == kPreviousSeed);

  // Half the points anywhere in the run, half in its last tenth, where the file is written.
  std::mt19937_64 rng(kKillSeed);
  std::uniform_real_distribution<double> anywhere(0.0, 1.0);
  std::uniform_real_distribution<double> near_end(0.9, 1.1);
  int64_t in_place = kPreviousSeed;  // the seed of the file out.h5 holds
  std::set<std::string> allowed_leftovers = {"out.h5"};
  int killed = 0;
  // kKillPoints points, and more (up to kMaxAttempts) while fewer than half of them cut a run
  // short: on a loaded machine a run may still finish before its kill.
  for (int i = 1; i <= kMaxAttempts && (i <= kKillPoints || killed < kKillPoints / 2); ++i) {
    const double fraction = i % 2 == 0 ? near_end(rng) : anywhere(rng);
    const pid_t pid = start_run(out, i);
    std::this_thread::sleep_for(std::chrono::duration<double>(fraction * run_seconds));
    kill(pid, SIGKILL);
    const int status = wait_for(pid);
    INFO("kill point " << i << " at " << fraction << " of " << run_seconds << " s");
    if (WIFSIGNALED(status)) {
      ++killed;
      allowed_leftovers.insert("out.h5.tmp." + std::to_string(pid));
    } else {
      REQUIRE(WIFEXITED(status));
      REQUIRE(WEXITSTATUS(status) == 0);
      // It finished before its kill: the machine runs faster now than while the length was
      // estimated (a busy test suite calibrated it), so later points move earlier.
      run_seconds *= 0.75;
    }
    // The previous complete file or this run's complete file (a run killed after its rename
    // has already put its file in place); a run that finished must have put its own.
    const int64_t seed = seed_of_complete_file(out);
    CHECK((seed == in_place || seed == i));
    if (!WIFSIGNALED(status)) CHECK(seed == i);
    in_place = seed;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir.file(""))) {
      CHECK(allowed_leftovers.count(entry.path().filename().string()) == 1);
    }
  }
  // The points must actually interrupt runs, or the test shows nothing.
  CHECK(killed >= kKillPoints / 2);
}
