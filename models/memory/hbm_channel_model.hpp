// Service time of one HBM channel (level 1 of the DRAM model: a FIFO server whose sustained
// rate is the channel's peak times the chip's measured streaming efficiency, plus a fixed
// access latency. Banks, row buffers, refresh and turnaround arrive with the chip-fidelity work;
// until then scattered access is not penalised beyond this efficiency -- see docs/modelling.md).
#pragma once

#include "models/chip/chip_params.hpp"

namespace scoville::models {

class HbmChannelModel {
 public:
  explicit HbmChannelModel(const HbmParams& params) : params_(params) {}

  // Time the channel is occupied transferring `bytes` (read or write).
  Duration occupancy(Bytes bytes) const {
    return bytes / (params_.bandwidth_per_channel * params_.streaming_efficiency);
  }
  // Time from a request reaching the front of the queue to its first data.
  Duration access_latency() const { return params_.latency; }

 private:
  HbmParams params_;
};

}  // namespace scoville::models
