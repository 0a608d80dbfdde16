// Service model of one memory channel: an HBM channel or a shared-SRAM bank (level 1 of the
// memory model). A FIFO server whose sustained rate is the channel's peak times the achieved
// streaming efficiency, plus a fixed access latency that does not occupy the channel. Banks, row
// buffers, refresh and turnaround arrive with the chip-fidelity work; until then scattered access
// is not penalised beyond the efficiency -- see docs/modelling.md.
#pragma once

#include "models/chip/chip_params.hpp"

namespace scoville::models {

class ChannelModel {
 public:
  ChannelModel(Bandwidth sustained, Duration latency) : sustained_(sustained), latency_(latency) {}

  // One HBM channel: peak per-channel bandwidth x streaming efficiency.
  static ChannelModel hbm(const HbmParams& params) {
    return ChannelModel(params.bandwidth_per_channel * params.streaming_efficiency, params.latency);
  }
  // One bank of shared SRAM: an equal share of the aggregate bandwidth, reached over the NoC.
  static ChannelModel shared_sram_bank(const SharedSramParams& params, Duration noc_latency) {
    return ChannelModel(params.bandwidth / static_cast<double>(params.banks), noc_latency);
  }

  // Time the channel is occupied transferring `bytes` (read or write).
  Duration occupancy(Bytes bytes) const { return bytes / sustained_; }
  // Time from a request reaching the front of the queue to its first data.
  Duration access_latency() const { return latency_; }
  Bandwidth sustained() const { return sustained_; }

 private:
  Bandwidth sustained_;
  Duration latency_;
};

}  // namespace scoville::models
