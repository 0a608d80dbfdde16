#include "models/memory/hbm_channel_model.hpp"

#include <algorithm>
#include <cmath>

namespace scoville::models {

HbmChannelModel::HbmChannelModel(const HbmParams& params, Duration refresh_phase)
    : t_burst_(params.timing.burst_bytes.si() / params.pseudo_channel_bandwidth().si()),
      t_same_group_(std::max(t_burst_, params.timing.t_ccd_l.si())),
      t_rp_(params.timing.t_rp.si()),
      t_rrd_(params.timing.t_rrd.si()),
      t_faw_(params.timing.t_faw.si()),
      t_rcd_(params.timing.t_rcd.si()),
      t_wtr_(params.timing.t_wtr.si()),
      t_rtw_(params.timing.t_rtw.si()),
      t_ras_(params.timing.t_ras.si()),
      t_wr_(params.timing.t_wr.si()),
      phase_(refresh_phase.si()),
      refi_(params.timing.t_refi.si()),
      rfc_(params.timing.t_rfc.si()),
      period_bytes_(static_cast<uint64_t>(params.timing.row_bytes.si()) *
                    static_cast<uint64_t>(params.timing.pseudo_channels * params.timing.banks())),
      row_bytes_(static_cast<uint64_t>(params.timing.row_bytes.si())),
      burst_bytes_(static_cast<uint64_t>(params.timing.burst_bytes.si())),
      banks_per_pc_(params.timing.banks()),
      banks_per_group_(params.timing.banks_per_group),
      pseudo_(static_cast<size_t>(params.timing.pseudo_channels)),
      banks_(static_cast<size_t>(params.timing.pseudo_channels * params.timing.banks())),
      timing_(params.timing),
      latency_(params.latency.si()) {
  const auto log2_exact = [](uint64_t v) {
    int bits = 0;
    while ((uint64_t{1} << bits) < v) ++bits;
    return (v != 0 && (uint64_t{1} << bits) == v) ? bits : -1;
  };
  const int row = log2_exact(row_bytes_);
  const int pc = log2_exact(static_cast<uint64_t>(timing_.pseudo_channels));
  const int bg = log2_exact(static_cast<uint64_t>(timing_.bank_groups));
  const int bank = log2_exact(static_cast<uint64_t>(timing_.banks_per_group));
  pow2_ = row >= 0 && pc >= 0 && bg >= 0 && bank >= 0;
  if (pow2_) {
    row_shift_ = row;
    pc_bits_ = pc;
    bg_bits_ = bg;
    bank_bits_ = bank;
  }
  burst_shift_ = log2_exact(burst_bytes_);
  // Bus time one pseudo-channel spends on one period when bursts alternate bank groups.
  data_per_period_ =
      static_cast<double>(timing_.banks()) *
      std::ceil(static_cast<double>(row_bytes_) / static_cast<double>(burst_bytes_)) * t_burst_;
  at_boundary_.reserve(pseudo_.size());
}

HbmChannelModel::Location HbmChannelModel::locate(uint64_t address) const {
  Location at;
  if (pow2_) {
    uint64_t chunk = address >> row_shift_;
    at.pseudo_channel = static_cast<int64_t>(chunk & ((uint64_t{1} << pc_bits_) - 1));
    chunk >>= pc_bits_;
    at.bank_group = static_cast<int64_t>(chunk & ((uint64_t{1} << bg_bits_) - 1));
    chunk >>= bg_bits_;
    at.bank = static_cast<int64_t>(chunk & ((uint64_t{1} << bank_bits_) - 1));
    at.row = static_cast<int64_t>(chunk >> bank_bits_);
    return at;
  }
  uint64_t chunk = address / row_bytes_;
  const auto take = [&chunk](int64_t count) {
    const auto part = static_cast<int64_t>(chunk % static_cast<uint64_t>(count));
    chunk /= static_cast<uint64_t>(count);
    return part;
  };
  at.pseudo_channel = take(timing_.pseudo_channels);
  at.bank_group = take(timing_.bank_groups);
  at.bank = take(timing_.banks_per_group);
  at.row = static_cast<int64_t>(chunk);
  return at;
}

int64_t HbmChannelModel::refresh_epoch(double t) const {
  if (t < phase_) return -1;
  if (cached_ && t >= cached_from_ && t < cached_from_ + refi_) return cached_epoch_;
  cached_epoch_ = static_cast<int64_t>(std::floor((t - phase_) / refi_));
  cached_from_ = phase_ + static_cast<double>(cached_epoch_) * refi_;
  cached_ = true;
  return cached_epoch_;
}

double HbmChannelModel::avoid_refresh_slow(double t, double length) {
  if (rfc_ <= 0) return t;
  bool stalled = false;
  // Window k covers [phase + k refi, phase + k refi + rfc). At most a few iterations: a segment
  // is far shorter than tREFI - tRFC.
  for (int guard = 0; guard < 4; ++guard) {
    const int64_t k = refresh_epoch(t);
    const double window = k < 0 ? phase_ : phase_ + static_cast<double>(k) * refi_;
    double moved = t;
    if (t >= window && t < window + rfc_) {
      moved = window + rfc_;
    } else if (t < window && t + length > window) {
      moved = window + rfc_;
    } else if (t >= window + rfc_ && t + length > window + refi_) {
      moved = window + refi_ + rfc_;
    }
    if (moved == t) break;
    t = moved;
    stalled = true;
  }
  if (stalled) ++stats_.refresh_stalls;
  return t;
}

double HbmChannelModel::serve_segment(double arrival, const Location& at, uint64_t bytes,
                                      bool write) {
  PseudoChannel& pc = pseudo_[static_cast<size_t>(at.pseudo_channel)];
  Bank& bank = banks_[static_cast<size_t>(at.pseudo_channel * banks_per_pc_ +
                                          at.bank_group * banks_per_group_ + at.bank)];
  // Whole bursts: the integer ceiling is the ceiling of the quotient (sizes far below 2^53).
  const double bursts =
      burst_shift_ >= 0 ? static_cast<double>((bytes + burst_bytes_ - 1) >> burst_shift_)
                        : std::ceil(static_cast<double>(bytes) / static_cast<double>(burst_bytes_));
  const bool same_group = pc.used && pc.last_group == at.bank_group;
  const double data = bursts * (same_group ? t_same_group_ : t_burst_);

  // Rows stay open until a conflicting access or a refresh (which closes every row).
  const bool open =
      bank.row >= 0 && bank.refresh_epoch == refresh_epoch(std::max(arrival, pc.bus_free));
  double column_ready = arrival;
  if (open && bank.row == at.row) {
    ++stats_.row_hits;
  } else {
    ++stats_.row_misses;
    double act = open ? std::max(arrival, bank.pre_ready) + t_rp_ : arrival;
    act = std::max({act, pc.last_act + t_rrd_, pc.recent_acts[pc.next_act_slot] + t_faw_});
    act = avoid_refresh(act, 0);
    pc.last_act = act;
    pc.recent_acts[pc.next_act_slot] = act;  // the oldest of the last four is overwritten
    pc.next_act_slot = (pc.next_act_slot + 1) % pc.recent_acts.size();
    bank.row = at.row;
    bank.act = act;
    column_ready = act + t_rcd_;
  }
  double bus_ready = pc.bus_free;
  if (pc.used && pc.last_write != write) {
    bus_ready += pc.last_write ? t_wtr_ : t_rtw_;
    ++stats_.turnarounds;
  }
  const double start = avoid_refresh(std::max(column_ready, bus_ready), data);
  const double end = start + data;
  pc.bus_free = end;
  pc.used = true;
  pc.last_write = write;
  pc.last_group = at.bank_group;
  bank.pre_ready = std::max(bank.act + t_ras_, end + (write ? t_wr_ : 0));
  bank.refresh_epoch = refresh_epoch(end);
  stats_.data_time += Duration(data);
  return end;
}

double HbmChannelModel::stretch_over_refresh(double t, double work) {
  if (rfc_ <= 0) return t + work;
  t = avoid_refresh(t, 0);
  double next_window = phase_ + static_cast<double>(refresh_epoch(t) + 1) * refi_;
  while (work > next_window - t) {
    work -= next_window - t;
    // Refresh closes every row: the first data after it waits for an ACT and tRCD.
    t = next_window + rfc_ + t_rcd_;
    next_window += refi_;
    ++stats_.refresh_stalls;
  }
  return t + work;
}

void HbmChannelModel::skip_periods(uint64_t periods, double data_per_period) {
  const double k = static_cast<double>(periods);
  double latest = 0;
  for (const PseudoChannel& pc : pseudo_) latest = std::max(latest, pc.bus_free);
  const double shift = stretch_over_refresh(latest, k * data_per_period) - latest;
  for (PseudoChannel& pc : pseudo_) {
    pc.bus_free += shift;
    pc.last_act += shift;
    for (double& a : pc.recent_acts) a += shift;
  }
  for (size_t b = 0; b < banks_.size(); ++b) {
    Bank& bank = banks_[b];
    bank.act += shift;
    bank.pre_ready += shift;
    if (bank.row >= 0) bank.row += static_cast<int64_t>(periods);
    bank.refresh_epoch = refresh_epoch(pseudo_[b / static_cast<size_t>(banks_per_pc_)].bus_free);
  }
  stats_.periods_skipped += static_cast<int64_t>(periods);
  // Each skipped period is one row miss per bank.
  stats_.row_misses += static_cast<int64_t>(periods) * timing_.pseudo_channels * timing_.banks();
  stats_.data_time += Duration(k * data_per_period * static_cast<double>(pseudo_.size()));
}

Duration HbmChannelModel::serve(Duration arrival, uint64_t address, uint64_t bytes, bool write) {
  double done = arrival.si();
  uint64_t cursor = address;
  const uint64_t end = address + bytes;
  const double data_per_period = data_per_period_;
  std::vector<double>& at_boundary = at_boundary_;  // empty until the first period boundary
  at_boundary.clear();
  int bus_bound_periods = 0;
  while (cursor < end) {
    if ((pow2_ ? cursor & (period_bytes_ - 1) : cursor % period_bytes_) == 0) {
      bool bus_bound = !at_boundary.empty();
      for (size_t p = 0; p < pseudo_.size() && bus_bound; ++p) {
        const double advanced = pseudo_[p].bus_free - at_boundary[p];
        bus_bound = std::abs(advanced - data_per_period) <= 1e-9 * data_per_period;
      }
      bus_bound_periods = bus_bound ? bus_bound_periods + 1 : 0;
      const uint64_t whole = (end - cursor) / period_bytes_;
      if (bus_bound_periods >= 2 && whole >= 2) {
        skip_periods(whole - 1, data_per_period);  // the last period runs explicitly
        cursor += (whole - 1) * period_bytes_;
        for (const PseudoChannel& pc : pseudo_) done = std::max(done, pc.bus_free);
        bus_bound_periods = 0;
      }
      at_boundary.resize(pseudo_.size());
      for (size_t p = 0; p < pseudo_.size(); ++p) at_boundary[p] = pseudo_[p].bus_free;
    }
    const uint64_t in_row = pow2_ ? cursor & (row_bytes_ - 1) : cursor % row_bytes_;
    const uint64_t take = std::min(row_bytes_ - in_row, end - cursor);
    done = std::max(done, serve_segment(arrival.si(), locate(cursor), take, write));
    cursor += take;
  }
  return Duration(done);
}

void HbmChannelModel::restart() {
  std::fill(pseudo_.begin(), pseudo_.end(), PseudoChannel{});
  cached_ = false;
  cached_from_ = 0;
  cached_epoch_ = -1;
  // Every bank has some other row open, as a program's predecessor leaves them in a running
  // chip (it streamed other addresses): the first access to a bank pays precharge and activate.
  // The row is one no address reaches, and far from overflowing where skip_periods advances
  // open rows.
  Bank other_row_open;
  other_row_open.row = int64_t{1} << 60;
  other_row_open.refresh_epoch = refresh_epoch(0.0);
  std::fill(banks_.begin(), banks_.end(), other_row_open);
}

}  // namespace scoville::models
