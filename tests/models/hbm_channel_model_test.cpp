// HbmChannelModel: bank/row timing of one HBM channel. Expected values are built from the
// parameters: burst time = burst_bytes / pseudo-channel bandwidth, tRCD, tRP, tRFC, tREFI, ...
#include <catch2/catch.hpp>

#include <cmath>

#include "models/memory/hbm_channel_model.hpp"
#include "sim/base/rng.hpp"

using namespace scoville;
using namespace scoville::models;

namespace {

HbmParams hbm3() {
  HbmParams p;
  p.stacks = 1;
  p.channels_per_stack = 16;
  p.bandwidth_per_channel = gigabytes_per_second(50);
  p.capacity = gib(16);
  p.latency = nanoseconds(100);
  p.interleave_granule = kib(4);
  HbmTimingParams& t = p.timing;
  t.pseudo_channels = 2;
  t.bank_groups = 4;
  t.banks_per_group = 4;
  t.row_bytes = kib(1);
  t.burst_bytes = Bytes(32);
  t.t_rcd = nanoseconds(14);
  t.t_rp = nanoseconds(14);
  t.t_ras = nanoseconds(33);
  t.t_ccd_l = nanoseconds(2.5);
  t.t_rrd = nanoseconds(2);
  t.t_faw = nanoseconds(15);
  t.t_wr = nanoseconds(16);
  t.t_wtr = nanoseconds(8);
  t.t_rtw = nanoseconds(4);
  t.t_refi = microseconds(3.9);
  t.t_rfc = nanoseconds(350);
  return p;
}

HbmParams without_refresh(HbmParams p) {
  p.timing.t_rfc = Duration(0);
  return p;
}

double row(const HbmParams& p) { return p.timing.row_bytes.si(); }
double burst_time(const HbmParams& p) {
  return p.timing.burst_bytes.si() / p.pseudo_channel_bandwidth().si();
}
// Achieved bandwidth of `bytes` served from time 0.
double achieved(HbmChannelModel& m, uint64_t bytes, Duration done) {
  (void)m;
  return static_cast<double>(bytes) / done.si();
}

}  // namespace

TEST_CASE("hbm address mapping: column, pseudo-channel, bank group, bank, row", "[models][hbm]") {
  const HbmParams p = hbm3();
  const HbmChannelModel m(p, Duration(0));
  const uint64_t r = static_cast<uint64_t>(row(p));
  const auto at = [&](uint64_t a) { return m.locate(a); };
  CHECK(at(0).pseudo_channel == 0);
  CHECK(at(r - 1).pseudo_channel == 0);  // one row segment stays in one place
  CHECK(at(r).pseudo_channel == 1);
  CHECK(at(2 * r).bank_group == 1);
  const uint64_t per_bank_step = r * 2 * 4;  // pseudo-channels x bank groups
  CHECK(at(per_bank_step).bank == 1);
  CHECK(at(per_bank_step).bank_group == 0);
  const uint64_t per_row_step = per_bank_step * 4;  // x banks per group
  CHECK(at(per_row_step).row == 1);
  CHECK(at(per_row_step).bank == 0);
  CHECK(at(per_row_step - 1).row == 0);
}

TEST_CASE("hbm first access pays tRCD, a row hit pays only the bursts", "[models][hbm]") {
  const HbmParams p = without_refresh(hbm3());
  HbmChannelModel m(p, Duration(0));
  const double bursts = row(p) / p.timing.burst_bytes.si();
  const double first = m.serve(Duration(0), 0, 1024, false).si();
  CHECK(first == Approx(p.timing.t_rcd.si() + bursts * burst_time(p)));
  CHECK(m.stats().row_misses == 1);
  // Same row again (same bank group back to back: bursts at tCCD_L).
  const double again = m.serve(Duration(first), 0, 1024, false).si();
  CHECK(again - first == Approx(bursts * p.timing.t_ccd_l.si()));
  CHECK(m.stats().row_hits == 1);
}

TEST_CASE("hbm row conflict pays precharge and activation", "[models][hbm]") {
  const HbmParams p = without_refresh(hbm3());
  HbmChannelModel m(p, Duration(0));
  const uint64_t next_row_same_bank = static_cast<uint64_t>(row(p)) * 2 * 4 * 4;
  REQUIRE(m.locate(next_row_same_bank).row == 1);
  const double one_burst = burst_time(p);
  const double first = m.serve(Duration(0), 0, 32, false).si();
  CHECK(first == Approx(p.timing.t_rcd.si() + one_burst));
  // The open row must stay open tRAS after its ACT (at 0), then tRP, ACT, tRCD, one burst.
  const double second = m.serve(Duration(first), next_row_same_bank, 32, false).si();
  const double pre = std::max(first, p.timing.t_ras.si());
  CHECK(second == Approx(pre + p.timing.t_rp.si() + p.timing.t_rcd.si() +
                         one_burst * p.timing.t_ccd_l.si() / one_burst));
  CHECK(m.stats().row_misses == 2);
}

TEST_CASE("hbm streaming reaches the pin rate less refresh", "[models][hbm]") {
  const HbmParams p = hbm3();
  const uint64_t bytes = 64ull << 20;
  {
    HbmChannelModel m(without_refresh(p), Duration(0));
    const Duration done = m.serve(Duration(0), 0, bytes, false);
    // Activations hide behind other banks' data: only the first tRCD is exposed.
    const double ideal = static_cast<double>(bytes) / p.bandwidth_per_channel.si();
    CHECK(done.si() == Approx(ideal + p.timing.t_rcd.si()).epsilon(1e-3));
  }
  HbmChannelModel m(p, Duration(0));
  const Duration done = m.serve(Duration(0), 0, bytes, false);
  const double efficiency = achieved(m, bytes, done) / p.bandwidth_per_channel.si();
  const double refresh_share = p.timing.t_rfc.si() / p.timing.t_refi.si();
  // Refresh removes tRFC of every tREFI; a segment cut by a window waits for its end (< 1%).
  CHECK(efficiency <= 1 - refresh_share + 1e-6);
  CHECK(efficiency > 1 - refresh_share - 0.01);
  CHECK(m.stats().refresh_stalls > 0);
}

TEST_CASE("hbm direction changes cost tWTR and tRTW", "[models][hbm]") {
  const HbmParams p = without_refresh(hbm3());
  HbmChannelModel m(p, Duration(0));
  // Two row segments in different pseudo-channels... keep to one pseudo-channel: stride 2 rows.
  const uint64_t r = static_cast<uint64_t>(row(p));
  const double bursts = row(p) / p.timing.burst_bytes.si();
  const double a = m.serve(Duration(0), 0, r, false).si();
  const double b = m.serve(Duration(0), 2 * r, r, true).si();  // next bank group, a write
  CHECK(b - a == Approx(p.timing.t_rtw.si() + bursts * burst_time(p)));
  const double c = m.serve(Duration(0), 4 * r, r, false).si();
  CHECK(c - b == Approx(p.timing.t_wtr.si() + bursts * burst_time(p)));
  CHECK(m.stats().turnarounds == 2);
}

TEST_CASE("hbm scattered small reads achieve less than streaming", "[models][hbm]") {
  const HbmParams p = hbm3();
  RngStream rng(1, "test");
  const uint64_t span = 1ull << 30;
  auto random_reads = [&](uint64_t size, int64_t count) {
    HbmChannelModel m(p, Duration(0));
    Duration done;
    for (int64_t i = 0; i < count; ++i) {
      const uint64_t a =
          static_cast<uint64_t>(rng.uniform_int(0, static_cast<int64_t>(span / size) - 1)) * size;
      done = m.serve(Duration(0), a, size, false);
    }
    return static_cast<double>(size) * static_cast<double>(count) / done.si();
  };
  HbmChannelModel stream(p, Duration(0));
  const uint64_t bytes = 16ull << 20;
  const double streaming = achieved(stream, bytes, stream.serve(Duration(0), 0, bytes, false));
  const double small = random_reads(64, 100000);
  const double page = random_reads(4096, 4000);
  CHECK(small < 0.8 * streaming);
  CHECK(page > small);
  // 64 B requests: one ACT each, at most four per tFAW per pseudo-channel.
  const double act_bound =
      static_cast<double>(p.timing.pseudo_channels) * 4.0 * 64.0 / p.timing.t_faw.si();
  CHECK(small <= act_bound * 1.001);
}

TEST_CASE("hbm refresh closes rows and stalls data", "[models][hbm]") {
  const HbmParams p = hbm3();
  const double phase = 1e-6;
  HbmChannelModel m(p, Duration(phase));
  // Open a row before the window, then access it inside the window: it waits for the window's
  // end and, the row having been closed, activates again.
  const double first = m.serve(Duration(0), 0, 32, false).si();
  CHECK(first < phase);
  const double during = m.serve(Duration(phase + 1e-9), 0, 32, false).si();
  CHECK(during ==
        Approx(phase + p.timing.t_rfc.si() + p.timing.t_rcd.si() + p.timing.t_ccd_l.si()));
  CHECK(m.stats().row_misses == 2);
}

TEST_CASE("hbm long runs skip steady-state periods with the explicit result", "[models][hbm]") {
  for (const HbmParams& p : {hbm3(), without_refresh(hbm3())}) {
    const uint64_t period = static_cast<uint64_t>(row(p)) *
                            static_cast<uint64_t>(p.timing.pseudo_channels * p.timing.banks());
    const uint64_t bytes = 2048 * period;  // 64 MiB
    HbmChannelModel whole(p, Duration(0));
    const double one_call = whole.serve(Duration(0), 0, bytes, false).si();
    CHECK(whole.stats().periods_skipped > 2000);
    // The same bytes as requests of one period each: too short to skip, so every row segment
    // is priced on its own.
    HbmChannelModel pieces(p, Duration(0));
    double done = 0;
    for (uint64_t a = 0; a < bytes; a += period) {
      done = std::max(done, pieces.serve(Duration(0), a, period, false).si());
    }
    CHECK(pieces.stats().periods_skipped == 0);
    // Equal but for where a refresh window cuts a row segment: priced alone, the whole segment
    // waits for the window's end (about half a segment, ~20 ns, per 3.9 us window).
    CHECK(one_call == Approx(done).epsilon(5e-3));
    CHECK(whole.stats().row_misses == pieces.stats().row_misses);
  }
}
