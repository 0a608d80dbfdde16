// Timing of one HBM channel at the granularity of row segments (the bytes of one request that
// fall in one row of one bank: at most row_bytes, i.e. KiB-scale), computed in closed form per
// segment rather than per burst, so long streams cost O(bytes / row_bytes).
//
// Address mapping inside the channel (low to high bits): column within a row | pseudo-channel |
// bank group | bank | row. A sequential stream therefore alternates pseudo-channels and bank
// groups every row_bytes, and returns to a bank (with the next row) only after
// pseudo_channels x banks row segments, which hides row activation behind other banks' data.
//
// Per segment (open-page policy, requests served in arrival order per pseudo-channel):
// - row hit: the row is open and no refresh has closed it since; no row command.
// - row miss: PRE (if a row is open, no earlier than tRAS after its ACT and tWR after write data)
//   then tRP, ACT no sooner than tRRD after the pseudo-channel's last ACT nor while four ACTs
//   lie within tFAW; data from ACT + tRCD. Activation overlaps earlier data on the bus (the
//   controller looks ahead), so it costs time only when banks or the ACT rate run out.
// - data: one burst per burst_bytes at the pseudo-channel's pin rate; back-to-back segments in
//   the same bank group cannot interleave with another group, so their bursts are tCCD_L apart.
// - direction change on a pseudo-channel's data bus costs tWTR (write to read) or tRTW.
// - all-bank refresh: every tREFI the channel stops for tRFC and all rows close; a segment's
//   data never overlaps a refresh window. Channels refresh at staggered phases.
// Achieved bandwidth is an outcome: streaming loses about tRFC / tREFI, copies add turnarounds,
// and small scattered requests pay activations they cannot hide.
//
// Long runs: a contiguous request visits every bank once per `period` (row_bytes x all banks of
// all pseudo-channels) and then repeats with the next row. Once two whole periods in a row have
// run bus-bound (each pseudo-channel's bus advanced by exactly its data time: no stall on a
// bank, an ACT or a refresh), the state is periodic and the remaining whole periods are advanced
// in one step: their data time, stretched over the refresh windows it spans. Cost per request
// is then O(period) instead of O(bytes / row_bytes).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/chip/chip_params.hpp"
#include "models/memory/channel_timing.hpp"

namespace scoville::models {

class HbmChannelModel : public ChannelTiming {
 public:
  struct Location {
    int64_t pseudo_channel = 0;
    int64_t bank_group = 0;
    int64_t bank = 0;  // within its group
    int64_t row = 0;
  };
  struct Stats {
    int64_t row_hits = 0;
    int64_t row_misses = 0;
    int64_t turnarounds = 0;
    int64_t refresh_stalls = 0;   // segments delayed by a refresh window
    int64_t periods_skipped = 0;  // steady-state periods of long runs advanced in one step
    Duration data_time;           // pseudo-channel bus time spent moving data (summed)
  };

  // `refresh_phase` offsets this channel's refresh windows (stagger across channels).
  HbmChannelModel(const HbmParams& params, Duration refresh_phase);

  Duration serve(Duration arrival, uint64_t address, uint64_t bytes, bool write) override;
  Duration access_latency() const override { return Duration(latency_); }
  // Other rows open in every bank, idle pseudo-channels, refresh counted from 0 again;
  // statistics are kept.
  void restart() override;

  Location locate(uint64_t address) const;
  const Stats& stats() const { return stats_; }
  // Duration of one burst on a pseudo-channel's data pins.
  Duration burst_time() const { return Duration(t_burst_); }

 private:
  struct Bank {
    int64_t row = -1;  // open row, -1 when closed
    int64_t refresh_epoch = -1;
    double act = 0;        // time of the last ACT
    double pre_ready = 0;  // earliest PRE (tRAS after ACT, tWR after write data)
  };
  // One cache line: a transfer touches every channel once, so the state a segment reads is kept
  // small and together (the whole model's hot state is a few lines).
  struct alignas(64) PseudoChannel {
    double bus_free = 0;
    double last_act = -1e30;
    std::array<double, 4> recent_acts{-1e30, -1e30, -1e30, -1e30};  // tFAW window, ring
    int64_t last_group = -1;
    uint32_t next_act_slot = 0;
    bool used = false;
    bool last_write = false;
  };

  double serve_segment(double arrival, const Location& at, uint64_t bytes, bool write);
  // Advances `periods` whole bus-bound periods of a sequential run at once (see above).
  void skip_periods(uint64_t periods, double data_per_period);
  // End of `work` seconds of data transfer starting at t, skipping refresh windows.
  double stretch_over_refresh(double t, double work);
  // Earliest start >= t of an interval of `length` overlapping no refresh window.
  double avoid_refresh(double t, double length) {
    // Most calls fall inside the remembered refresh interval, clear of both windows: the same
    // answer as the loop in avoid_refresh_slow (no move), without it.
    if (cached_ && t >= cached_from_ + rfc_ && t < cached_from_ + refi_ &&
        t + length <= cached_from_ + refi_) {
      return t;
    }
    return avoid_refresh_slow(t, length);
  }
  double avoid_refresh_slow(double t, double length);
  // Index of the last refresh window starting at or before t (-1 before the first). Times are
  // mostly increasing, so the last answer is kept and reused while t stays in its interval.
  int64_t refresh_epoch(double t) const;

  // Hot: read by every segment (timing parameters as plain seconds), declared together.
  double t_burst_;
  double t_same_group_;  // one burst's bus time in the bank group of the previous one
  double t_rp_;
  double t_rrd_;
  double t_faw_;
  double t_rcd_;
  double t_wtr_;
  double t_rtw_;
  double t_ras_;
  double t_wr_;
  double phase_;
  double refi_;
  double rfc_;
  mutable double cached_from_ = 0;  // [cached_from_, cached_from_ + refi_) has cached_epoch_
  mutable int64_t cached_epoch_ = -1;
  mutable bool cached_ = false;
  // Address decoding by shifts and masks when every size is a power of two (the usual case;
  // otherwise divisions): log2 of row_bytes, and of each field's count.
  bool pow2_ = false;
  int row_shift_ = 0;
  int pc_bits_ = 0;
  int bg_bits_ = 0;
  int bank_bits_ = 0;
  int burst_shift_ = -1;  // log2 of burst_bytes, -1 when not a power of two
  uint64_t period_bytes_;
  uint64_t row_bytes_;
  uint64_t burst_bytes_;
  int64_t banks_per_pc_;
  int64_t banks_per_group_;
  std::vector<PseudoChannel> pseudo_;
  std::vector<Bank> banks_;  // banks_per_pc_ per pseudo-channel, in pseudo-channel order
  Stats stats_;
  // Cold.
  HbmTimingParams timing_;
  double latency_;
  double data_per_period_ = 0;       // bus time of one period on one pseudo-channel (see serve)
  std::vector<double> at_boundary_;  // serve's scratch: each bus_free at the last period start
};

}  // namespace scoville::models
