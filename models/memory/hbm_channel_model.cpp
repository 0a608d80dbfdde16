#include "models/memory/hbm_channel_model.hpp"

#include <algorithm>
#include <cmath>

namespace scoville::models {

HbmChannelModel::HbmChannelModel(const HbmParams& params, Duration refresh_phase)
    : timing_(params.timing),
      row_bytes_(static_cast<uint64_t>(params.timing.row_bytes.si())),
      burst_bytes_(static_cast<uint64_t>(params.timing.burst_bytes.si())),
      latency_(params.latency.si()),
      t_burst_(params.timing.burst_bytes.si() / params.pseudo_channel_bandwidth().si()),
      phase_(refresh_phase.si()),
      pseudo_(static_cast<size_t>(params.timing.pseudo_channels)) {
  for (PseudoChannel& p : pseudo_) p.banks.resize(static_cast<size_t>(timing_.banks()));
}

HbmChannelModel::Location HbmChannelModel::locate(uint64_t address) const {
  uint64_t chunk = address / row_bytes_;
  Location at;
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
  const double refi = timing_.t_refi.si();
  return t < phase_ ? -1 : static_cast<int64_t>(std::floor((t - phase_) / refi));
}

double HbmChannelModel::avoid_refresh(double t, double length) {
  const double refi = timing_.t_refi.si();
  const double rfc = timing_.t_rfc.si();
  if (rfc <= 0) return t;
  bool stalled = false;
  // Window k covers [phase + k refi, phase + k refi + rfc). At most a few iterations: a segment
  // is far shorter than tREFI - tRFC.
  for (int guard = 0; guard < 4; ++guard) {
    const int64_t k = std::max<int64_t>(0, refresh_epoch(t));
    const double window = phase_ + static_cast<double>(k) * refi;
    double moved = t;
    if (t >= window && t < window + rfc) {
      moved = window + rfc;
    } else if (t < window && t + length > window) {
      moved = window + rfc;
    } else if (t >= window + rfc && t + length > window + refi) {
      moved = window + refi + rfc;
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
  Bank& bank = pc.banks[static_cast<size_t>(at.bank_group * timing_.banks_per_group + at.bank)];
  const double bursts = std::ceil(static_cast<double>(bytes) / static_cast<double>(burst_bytes_));
  const bool same_group = pc.used && pc.last_group == at.bank_group;
  const double data = bursts * (same_group ? std::max(t_burst_, timing_.t_ccd_l.si()) : t_burst_);

  // Rows stay open until a conflicting access or a refresh (which closes every row).
  const bool open =
      bank.row >= 0 && bank.refresh_epoch == refresh_epoch(std::max(arrival, pc.bus_free));
  double column_ready = arrival;
  if (open && bank.row == at.row) {
    ++stats_.row_hits;
  } else {
    ++stats_.row_misses;
    double act = open ? std::max(arrival, bank.pre_ready) + timing_.t_rp.si() : arrival;
    act = std::max({act, pc.last_act + timing_.t_rrd.si(),
                    pc.recent_acts[pc.next_act_slot] + timing_.t_faw.si()});
    act = avoid_refresh(act, 0);
    pc.last_act = act;
    pc.recent_acts[pc.next_act_slot] = act;  // the oldest of the last four is overwritten
    pc.next_act_slot = (pc.next_act_slot + 1) % pc.recent_acts.size();
    bank.row = at.row;
    bank.act = act;
    column_ready = act + timing_.t_rcd.si();
  }
  double bus_ready = pc.bus_free;
  if (pc.used && pc.last_write != write) {
    bus_ready += pc.last_write ? timing_.t_wtr.si() : timing_.t_rtw.si();
    ++stats_.turnarounds;
  }
  const double start = avoid_refresh(std::max(column_ready, bus_ready), data);
  const double end = start + data;
  pc.bus_free = end;
  pc.used = true;
  pc.last_write = write;
  pc.last_group = at.bank_group;
  bank.pre_ready = std::max(bank.act + timing_.t_ras.si(), end + (write ? timing_.t_wr.si() : 0));
  bank.refresh_epoch = refresh_epoch(end);
  stats_.data_time += Duration(data);
  return end;
}

Duration HbmChannelModel::serve(Duration arrival, uint64_t address, uint64_t bytes, bool write) {
  double done = arrival.si();
  uint64_t cursor = address;
  const uint64_t end = address + bytes;
  while (cursor < end) {
    const uint64_t take = std::min(row_bytes_ - cursor % row_bytes_, end - cursor);
    done = std::max(done, serve_segment(arrival.si(), locate(cursor), take, write));
    cursor += take;
  }
  return Duration(done);
}

}  // namespace scoville::models
