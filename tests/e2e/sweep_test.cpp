// `scoville sweep` and `scoville merge` as a user runs them: parallel points, a failing point
// that does not stop the others, resuming after SIGKILL, shards merged into the same index, and
// bit-identical per-point results whatever ran them.
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "sim/output/h5_reader.hpp"
#include "tests/e2e/test_support.hpp"

using scoville::test::read_file;
using scoville::test::run_scoville;
using scoville::test::TempDir;
namespace fs = std::filesystem;

namespace {

// Three quick points; the batch of 4096 with 10^6-token prompts cannot fit any chip's HBM, so
// that point fails at run time (it is a valid study) and the others must still finish.
std::string sweep_file(const TempDir& dir, bool with_failure) {
  return dir.write(
      "s.yaml",
      "sweep:\n  name: e2e\n"
      "  study: {chips: [jalapeno], model: llama-3.1-8b, batch: 1, isl: 128, "
      "osl: 4, seed: 1}\n"
      "  combine: zip\n  axes:\n" +
          std::string(with_failure ? "    - {key: study.batch, values: [1, 2, 4096]}\n"
                                     "    - {key: study.isl, values: [128, 256, 1000000]}\n"
                                   : "    - {key: study.batch, values: [1, 2, 3]}\n"
                                     "    - {key: study.isl, values: [128, 256, 64]}\n"));
}

std::vector<std::string> point_results(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(fs::path(dir) / "points")) {
    if (e.path().extension() == ".h5") files.push_back(e.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The tables of a point file (provenance attributes such as the creation time differ by run).
std::string tables_of(const std::string& path) {
  const auto doc = scoville::output::read_results_file(path);
  std::string out;
  for (const auto& t : doc.tables) {
    out += t.path + "\n";
    for (const auto& c : t.columns) {
      out += c.name + ":";
      std::visit(
          [&](const auto& values) {
            for (const auto& v : values) {
              std::ostringstream s;
              s.precision(17);
              s << v << ",";
              out += s.str();
            }
          },
          c.values);
      out += "\n";
    }
  }
  return out;
}

}  // namespace

TEST_CASE("sweep: points run in parallel and a failing point is recorded while the rest finish",
          "[sweep]") {
  TempDir dir("sweep-fail");
  const auto r = run_scoville("sweep " + sweep_file(dir, true) + " -j 2 -o " + dir.file("out"));
  INFO(r.output);
  CHECK(r.exit_code == 4);
  CHECK(point_results(dir.file("out")).size() == 2);
  const auto index = scoville::output::read_results_file(dir.file("out/sweep.h5"));
  const scoville::output::Table* points = nullptr;
  for (const auto& t : index.tables) {
    if (t.path == "/points") points = &t;
  }
  REQUIRE(points != nullptr);
  std::vector<std::string> status, error;
  for (const auto& c : points->columns) {
    if (c.name == "status") status = std::get<std::vector<std::string>>(c.values);
    if (c.name == "error") error = std::get<std::vector<std::string>>(c.values);
  }
  CHECK(status == std::vector<std::string>{"done", "done", "failed"});
  CHECK_THAT(error[2], Catch::Contains("exit status 2"));
  CHECK(error[0].empty());
}

TEST_CASE("sweep: -j, shards and reruns give bit-identical point results", "[sweep]") {
  TempDir dir("sweep-same");
  const std::string file = sweep_file(dir, false);
  const std::string env = "SOURCE_DATE_EPOCH=0";
  REQUIRE(run_scoville("sweep " + file + " -j 1 --quiet -o " + dir.file("a"), env).exit_code == 0);
  REQUIRE(run_scoville("sweep " + file + " -j 3 --quiet -o " + dir.file("b"), env).exit_code == 0);
  REQUIRE(
      run_scoville("sweep " + file + " --shard 0/2 --quiet -o " + dir.file("c"), env).exit_code ==
      0);
  // Before the second shard, merge reports pending points.
  CHECK(run_scoville("merge " + dir.file("c"), env).exit_code == 4);
  REQUIRE(
      run_scoville("sweep " + file + " --shard 1/2 --quiet -o " + dir.file("c"), env).exit_code ==
      0);
  const auto merged = run_scoville("merge " + dir.file("c"), env);
  INFO(merged.output);
  CHECK(merged.exit_code == 0);
  const auto names = point_results(dir.file("a"));
  REQUIRE(names.size() == 3);
  CHECK(point_results(dir.file("b")) == names);
  CHECK(point_results(dir.file("c")) == names);
  for (const std::string& name : names) {
    const std::string a = tables_of(dir.file("a/points/" + name));
    CHECK(tables_of(dir.file("b/points/" + name)) == a);
    CHECK(tables_of(dir.file("c/points/" + name)) == a);
  }
  CHECK(tables_of(dir.file("c/sweep.h5")) == tables_of(dir.file("a/sweep.h5")));
}

TEST_CASE("sweep: a run killed with SIGKILL resumes, skipping finished points", "[sweep]") {
  TempDir dir("sweep-kill");
  const std::string file = sweep_file(dir, false);
  const std::string out = dir.file("out");
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    const std::string exe = scoville::test::scoville_binary();
    execl(exe.c_str(), exe.c_str(), "sweep", file.c_str(), "--quiet", "-o", out.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Kill the sweep once its first point is done (or give up waiting after a minute).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (std::chrono::steady_clock::now() < deadline &&
         (!fs::exists(out + "/points") || point_results(out).empty())) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  const size_t finished_before = point_results(out).size();
  CHECK(finished_before >= 1);
  const auto resumed = run_scoville("sweep " + file + " -o " + out);
  INFO(resumed.output);
  CHECK(resumed.exit_code == 0);
  CHECK_THAT(resumed.output,
             Catch::Contains("(" + std::to_string(finished_before) + " from an earlier run)"));
  CHECK(point_results(out).size() == 3);
  for (const auto& e : fs::directory_iterator(fs::path(out) / "points")) {
    CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
  }
}

TEST_CASE("sweep: bad command lines and directories are refused", "[sweep]") {
  TempDir dir("sweep-bad");
  CHECK(run_scoville("sweep").exit_code == 2);
  CHECK(run_scoville("sweep " + sweep_file(dir, false) + " --shard 2/2").exit_code == 2);
  CHECK(run_scoville("sweep " + sweep_file(dir, false) + " -j 0").exit_code == 2);
  const auto merge = run_scoville("merge " + dir.file("nothing-here"));
  CHECK(merge.exit_code == 2);
  CHECK_THAT(merge.output, Catch::Contains("not a sweep directory"));
}
