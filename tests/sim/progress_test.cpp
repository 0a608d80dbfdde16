// The terminal progress line: when it is drawn, what it says, and that it stays off otherwise.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "sim/output/chip_ops_progress.hpp"
#include "sim/output/progress.hpp"
#include "sim/sweep/point_label.hpp"

using namespace scoville::output;

TEST_CASE("progress is drawn only on a terminal, not dumb, not --quiet", "[progress]") {
  CHECK(progress_wanted(true, "xterm-256color", false));
  CHECK(progress_wanted(true, nullptr, false));
  CHECK_FALSE(progress_wanted(false, "xterm", false));  // a pipe, a file, a CI log
  CHECK_FALSE(progress_wanted(true, "xterm", true));    // --quiet
  CHECK_FALSE(progress_wanted(true, "dumb", false));
}

TEST_CASE("progress: time left at the rate so far", "[progress]") {
  CHECK(format_eta(0.4) == "0 s");
  CHECK(format_eta(42.0) == "42 s");
  CHECK(format_eta(185.0) == "3 min 05 s");
  CHECK(format_eta(7620.0) == "2 h 07 min");
  CHECK(format_eta(-1.0) == "?");
  // 3 of 8 in 30 s: 10 s each, 5 to go.
  CHECK(progress_line("sweep", 3, 8, 30.0, "batch=16, isl=1024") ==
        "sweep [###########...................] 3/8 (37%) 50 s left: batch=16, isl=1024");
  CHECK(progress_line("validate", 0, 40, 1.0, "") ==
        "validate [..............................] 0/40 (0%) ? left");
  CHECK(progress_line("v", 40, 40, 100.0, "") ==
        "v [##############################] 40/40 (100%) 0 s left");
  CHECK(progress_line("calibrate h200", 7, 0, 9.0, "fit evaluations") ==
        "calibrate h200: 7 done: fit evaluations");
  const std::string cut = progress_line("sweep", 1, 2, 1.0, std::string(200, 'x'), 60);
  CHECK(cut.size() == 60);
  CHECK(cut.substr(57) == "...");
}

TEST_CASE("progress redraws one line and clears it, and is silent when off", "[progress]") {
  std::ostringstream tty;
  {
    ProgressReporter p("sweep", 2, true, tty);
    p.step("batch=1");
    std::ostringstream log;
    p.print(log, "[1/2] batch=1 done");
    CHECK(log.str() == "[1/2] batch=1 done\n");
    p.step("batch=4");
  }
  const std::string drawn = tty.str();
  CHECK(drawn.find('\n') == std::string::npos);  // one line, redrawn with \r
  CHECK(drawn.find("\r") == 0);
  CHECK(drawn.find("1/2 (50%)") != std::string::npos);
  CHECK(drawn.find("2/2 (100%)") != std::string::npos);
  CHECK(drawn.find(": batch=4") != std::string::npos);
  CHECK(drawn.substr(drawn.size() - 4) == "\r\033[K");  // cleared at the end

  std::ostringstream quiet;
  {
    ProgressReporter p("sweep", 2, false, quiet);
    p.step("batch=1");
    std::ostringstream log;
    p.print(log, "line");
    CHECK(log.str() == "line\n");
  }
  CHECK(quiet.str().empty());
}

TEST_CASE("a detailed run's progress sums the chips' ops and names each chip", "[progress]") {
  std::ostringstream tty;
  {
    scoville::output::ChipOpsProgress p("run", {"h200", "arch/chips/jalapeno.yaml"}, true, tty,
                                        true);
    p.ops_done(0, 0, 4);
    CHECK(tty.str().empty());  // nothing before every chip's total is known
    p.ops_done(1, 0, 6);
    CHECK(tty.str().find("run: ops done") != std::string::npos);
    CHECK(tty.str().find("0/10 (0%)") != std::string::npos);
    p.ops_done(0, 3, 4);
    p.ops_done(1, 2, 6);
    CHECK(tty.str().find("5/10 (50%)") != std::string::npos);
    CHECK(tty.str().find(": h200 3/4, jalapeno 2/6") != std::string::npos);
    p.ops_done(0, 4, 4);
    p.ops_done(1, 6, 6);
    CHECK(tty.str().find("10/10 (100%)") != std::string::npos);
    p.finish();
  }
  CHECK(tty.str().substr(tty.str().size() - 4) == "\r\033[K");  // cleared at the end
  // Throttled: ops inside one redraw interval draw nothing until a chip's program is done.
  std::ostringstream throttled;
  {
    scoville::output::ChipOpsProgress p("run", {"h200"}, true, throttled, false);
    p.ops_done(0, 0, 1000);
    const size_t drawn = throttled.str().size();
    for (int64_t done = 1; done < 10; ++done) p.ops_done(0, done, 1000);
    CHECK(throttled.str().size() == drawn);
    p.ops_done(0, 1000, 1000);
    CHECK(throttled.str().find("1000/1000 (100%)") != std::string::npos);
  }
  std::ostringstream off;
  {
    scoville::output::ChipOpsProgress p("run", {"h200"}, false, off, true);
    p.ops_done(0, 0, 2);
    p.ops_done(0, 2, 2);
  }
  CHECK(off.str().empty());
}

TEST_CASE("a sweep point is named by what it varies", "[progress][sweep]") {
  scoville::sweep::SweepPoint p;
  p.id = "2481344b7af0";
  p.assignments = {{"study.batch", "16"}, {"scenario.requests.concurrency", "4"}};
  CHECK(scoville::sweep::point_label(p) == "batch=16, requests.concurrency=4");
  p.assignments.clear();
  CHECK(scoville::sweep::point_label(p) == "2481344b7af0");
}
