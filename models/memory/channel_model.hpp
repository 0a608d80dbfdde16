// Service model of a bank of shared SRAM: a FIFO server at an equal share of the aggregate
// bandwidth, plus a fixed access latency that does not occupy the bank. SRAM has no rows or
// refresh, so occupancy is bytes over bandwidth whatever the access pattern. HBM channels use the
// DRAM timing model in hbm_channel_model.hpp instead.
#pragma once

#include <algorithm>

#include "models/chip/chip_params.hpp"
#include "models/memory/channel_timing.hpp"

namespace scoville::models {

class ChannelModel : public ChannelTiming {
 public:
  ChannelModel(Bandwidth sustained, Duration latency) : sustained_(sustained), latency_(latency) {}

  // One bank of shared SRAM: an equal share of the aggregate bandwidth, reached over the NoC.
  static ChannelModel shared_sram_bank(const SharedSramParams& params, Duration noc_latency) {
    return ChannelModel(params.bandwidth / static_cast<double>(params.banks), noc_latency);
  }

  // Time the channel is occupied transferring `bytes` (read or write).
  Duration occupancy(Bytes bytes) const { return bytes / sustained_; }
  Duration access_latency() const override { return latency_; }
  Bandwidth sustained() const { return sustained_; }

  void restart() override { busy_until_ = Duration(); }

  Duration serve(Duration arrival, uint64_t /*address*/, uint64_t bytes, bool /*write*/) override {
    busy_until_ = std::max(arrival, busy_until_) + occupancy(Bytes(static_cast<double>(bytes)));
    return busy_until_;
  }

 private:
  Bandwidth sustained_;
  Duration latency_;
  Duration busy_until_;
};

}  // namespace scoville::models
