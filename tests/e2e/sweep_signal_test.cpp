// SIGTERM and SIGINT to a running sweep (the hostile campaign's signal class, issue 30): the
// signal reaches the point processes, the sweep waits for them and exits 128 + signal within
// 5 s with none left running, stopped points stay pending, and a rerun completes the sweep.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/test_support.hpp"

using scoville::test::read_file;
using scoville::test::run_scoville;
using scoville::test::TempDir;
namespace fs = std::filesystem;

namespace {

// Processes whose command line mentions `marker` (the sweep and its points), other than this one.
std::vector<pid_t> processes_mentioning(const std::string& marker) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = read_file(e.path().string() + "/cmdline");
    for (char& ch : cmdline) ch = ch == '\0' ? ' ' : ch;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    // A zombie has an empty command line: it has exited and holds no work.
    if (pid != getpid() && cmdline.find(marker) != std::string::npos) out.push_back(pid);
  }
  return out;
}

// Starts `scoville sweep FILE -o OUT -j 2 --quiet` as a child of the test.
pid_t start_sweep(const std::string& file, const std::string& out) {
  const pid_t child = fork();
  if (child == 0) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    const std::string exe = scoville::test::scoville_binary();
    execl(exe.c_str(), exe.c_str(), "sweep", file.c_str(), "-j", "2", "--quiet", "-o", out.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  return child;
}

// Two serving points that each take about 4 s of CPU and 0.5 GB (many requests at the op-table
// level), so that a point outliving its sweep by the 5 s allowed would be seen; both run at once
// (-j 2).
std::string slow_sweep(const TempDir& dir) {
  return dir.write(
      "slow.yaml",
      "sweep:\n  name: slow\n  scenario:\n    name: slow\n    system: {chip: h200, chips: 1}\n"
      "    model: llama-3.1-8b\n    mapping:\n      default: {chips: 1, tp: 1}\n"
      "    requests: {pattern: closed_loop, isl: 64, osl: 1024, concurrency: 64, "
      "num_prompts: 20000}\n"
      "  axes:\n    - {key: scenario.seed, values: [1, 2]}\n");
}

// With `rerun`, a rerun of the same command must then complete the sweep.
void signal_stops_the_points(int signal, bool rerun) {
  TempDir dir(signal == SIGTERM ? "hostile-term" : "hostile-int");
  const std::string file = slow_sweep(dir);
  const std::string out = dir.file("out");
  const pid_t sweep = start_sweep(file, out);
  REQUIRE(sweep > 0);
  // Wait until the points run (their command lines name the points folder).
  const std::string points = out + "/points/";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline && processes_mentioning(points).empty()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const std::vector<pid_t> running = processes_mentioning(points);
  REQUIRE(!running.empty());
  kill(sweep, signal);
  // Within 5 s the sweep has exited and no process of it is left.
  int status = 0;
  const auto stop_by = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  pid_t waited = 0;
  while (std::chrono::steady_clock::now() < stop_by &&
         (waited = waitpid(sweep, &status, WNOHANG)) == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (waited == 0) {
    kill(sweep, SIGKILL);
    waitpid(sweep, &status, 0);
  }
  CHECK(waited == sweep);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 128 + signal);
  while (std::chrono::steady_clock::now() < stop_by && !processes_mentioning(out).empty()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const std::vector<pid_t> left = processes_mentioning(out);
  CHECK(left.empty());
  for (pid_t p : left) kill(p, SIGKILL);
  // A stopped point is pending, not failed: no error file, no result.
  size_t errors = 0;
  for (const auto& e : fs::directory_iterator(out + "/points")) {
    errors += e.path().extension() == ".err" ? 1 : 0;
  }
  CHECK(errors == 0);
  if (!rerun) return;
  // A rerun completes the sweep.
  const auto again = run_scoville("sweep " + file + " -o " + out + " -j 2 --quiet");
  INFO(again.output);
  CHECK(again.exit_code == 0);
  CHECK_THAT(again.output, Catch::Contains("2 done") && Catch::Contains("0 failed"));
}

}  // namespace

TEST_CASE("hostile: SIGTERM to a sweep stops its points within 5 s and a rerun completes it",
          "[hostile][sweep]") {
  signal_stops_the_points(SIGTERM, true);
}

TEST_CASE("hostile: SIGINT to a sweep stops its points within 5 s", "[hostile][sweep]") {
  signal_stops_the_points(SIGINT, false);  // the rerun is the SIGTERM case's
}
