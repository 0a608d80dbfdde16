// Physical address -> HBM channel mapping: consecutive granules rotate over all channels.
#pragma once

#include <cstdint>
#include <vector>

namespace scoville::models {

class AddressInterleaver {
 public:
  AddressInterleaver(int64_t channels, uint64_t granule_bytes)
      : channels_(channels), granule_(granule_bytes) {}

  int64_t channel_of(uint64_t address) const {
    return static_cast<int64_t>((address / granule_) % static_cast<uint64_t>(channels_));
  }

  // Bytes of [address, address + size) that fall in each channel (result has one entry per
  // channel). Computed arithmetically, so its cost does not grow with the size.
  std::vector<uint64_t> split(uint64_t address, uint64_t size) const;

 private:
  int64_t channels_;
  uint64_t granule_;
};

}  // namespace scoville::models
