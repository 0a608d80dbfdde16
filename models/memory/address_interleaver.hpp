// Physical address -> memory channel mapping. Consecutive granules rotate over all channels, and
// each round of `channels` granules is rotated by a hashed offset, as memory controllers hash
// address bits: without it, regions whose size is a multiple of one round (common: power-of-two
// weight slices) would all start on the same channel and queue there while others idle.
#pragma once

#include <cstdint>
#include <vector>

namespace scoville::models {

class AddressInterleaver {
 public:
  AddressInterleaver(int64_t channels, uint64_t granule_bytes)
      : channels_(static_cast<uint64_t>(channels)), granule_(granule_bytes) {}

  int64_t channel_of(uint64_t address) const;

  // Bytes of [address, address + size) that fall in each channel (one entry per channel).
  // Whole rounds are spread arithmetically, so the cost does not grow with the size.
  std::vector<uint64_t> split(uint64_t address, uint64_t size) const;

 private:
  uint64_t channels_;
  uint64_t granule_;
};

}  // namespace scoville::models
