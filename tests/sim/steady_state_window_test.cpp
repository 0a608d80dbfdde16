// The benchmark's steady-state window (serving/steady_state_window.hpp): its edges from the
// request records as ML.ENERGY's RequestTracker sets them, and what the window holds (energy pro
// rata, idle gaps at idle power, tokens delivered inside it).
#include <catch2/catch.hpp>

#include <vector>

#include "sim/serving/steady_state_window.hpp"

using namespace scoville;
using serving::RequestRecord;

namespace {

RequestRecord record(double first_s, double finished_s, int64_t output_tokens) {
  RequestRecord r;
  r.output_tokens = output_tokens;
  r.first_token = Duration(first_s);
  r.finished = Duration(finished_s);
  // Evenly spaced deliveries of one token each after the first.
  const double gap = output_tokens > 1 ? (finished_s - first_s) / double(output_tokens - 1) : 0.0;
  for (int64_t i = 1; i < output_tokens; ++i) r.itl.push_back(Duration(gap));
  return r;
}

}  // namespace

TEST_CASE("steady-state window: from the B-th first token to the (N - B - 1)-th finish",
          "[steady_state]") {
  // N = 6 requests, B = 2: the window opens at the 2nd first token (1 s) and closes when
  // 6 - 2 - 1 = 3 requests have finished (the 3rd finish, 7 s), whatever the records' order.
  const std::vector<RequestRecord> records = {record(3, 9, 4), record(0.5, 5, 4), record(1, 6, 4),
                                              record(2, 7, 4), record(4, 10, 4),  record(5, 11, 4)};
  const auto w = serving::steady_state_window(records, 2);
  REQUIRE(w.has_value());
  CHECK(w->start.si() == Approx(1.0));
  CHECK(w->end.si() == Approx(7.0));
  // N - B - 1 below B still has a window (the batch is full until N - B have finished): B = 4
  // opens at the 4th first token (3 s) and closes at the first finish (5 s), as the tracker does.
  const auto short_run = serving::steady_state_window(records, 4);
  REQUIRE(short_run.has_value());
  CHECK(short_run->start.si() == Approx(3.0));
  CHECK(short_run->end.si() == Approx(5.0));
  // Too few requests for a window: N - B - 1 < 1.
  CHECK_FALSE(serving::steady_state_window(records, 5).has_value());
  CHECK_FALSE(serving::steady_state_window({}, 1).has_value());
  CHECK_FALSE(serving::steady_state_window(records, 0).has_value());
}

TEST_CASE("steady-state window: energy pro rata, idle gaps at idle power, tokens inside",
          "[steady_state]") {
  const serving::MeasurementWindow w{Duration(1.0), Duration(5.0)};
  // Pool 0: an iteration straddling the start (0-2 s, 100 J: half inside), one inside (2-3 s,
  // 40 J), then nothing until one straddling the end (4-6 s, 60 J: half inside); the gap 3-4 s is
  // idle at 10 W. Pool 1 ran nothing: 4 s at 5 W.
  const std::vector<serving::IterationEnergyLog::Entry> its = {
      {0, Duration(0.0), Duration(2.0), Energy(100.0)},
      {0, Duration(2.0), Duration(3.0), Energy(40.0)},
      {0, Duration(4.0), Duration(6.0), Energy(60.0)},
      {0, Duration(6.0), Duration(7.0), Energy(999.0)}};  // after the window: not counted
  // One request whose first token comes at 0.5 s (outside) and three more at 2, 3.5 and 5.5 s.
  RequestRecord r;
  r.output_tokens = 4;
  r.first_token = Duration(0.5);
  r.itl = {Duration(1.5), Duration(1.5), Duration(2.0)};
  // One whose first token is inside (4 s) and that has no more.
  RequestRecord single;
  single.output_tokens = 1;
  single.first_token = Duration(4.0);
  const serving::WindowTotals t = serving::window_totals(w, its, {r, single}, {10.0, 5.0});
  CHECK(t.time.si() == Approx(4.0));
  CHECK(t.energy.si() == Approx(50.0 + 40.0 + 30.0 + 10.0 * 1.0 + 5.0 * 4.0));
  CHECK(t.output_tokens == Approx(3.0));  // 2 s and 3.5 s of r, and single's only token
}

TEST_CASE("steady-state window: an MTP delivery of several tokens counts its share",
          "[steady_state]") {
  // 7 tokens in 1 + 3 deliveries: each later delivery carries 2 tokens on average.
  RequestRecord r;
  r.output_tokens = 7;
  r.first_token = Duration(0.0);
  r.itl = {Duration(1.0), Duration(1.0), Duration(1.0)};
  const serving::WindowTotals t =
      serving::window_totals({Duration(0.5), Duration(2.5)}, {}, {r}, {});
  CHECK(t.output_tokens == Approx(4.0));
  CHECK(t.energy.si() == Approx(0.0));
}
