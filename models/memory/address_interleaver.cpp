#include "models/memory/address_interleaver.hpp"

#include <algorithm>

namespace scoville::models {

std::vector<uint64_t> AddressInterleaver::split(uint64_t address, uint64_t size) const {
  const uint64_t channels = static_cast<uint64_t>(channels_);
  std::vector<uint64_t> bytes(channels, 0);
  uint64_t cursor = address;
  const uint64_t end = address + size;
  // Leading partial granule, so that the rest starts on a granule boundary.
  if (cursor % granule_ != 0 && cursor < end) {
    const uint64_t take = std::min(granule_ - cursor % granule_, end - cursor);
    bytes[(cursor / granule_) % channels] += take;
    cursor += take;
  }
  // Whole rounds over every channel.
  const uint64_t round = granule_ * channels;
  const uint64_t rounds = (end - cursor) / round;
  if (rounds > 0) {
    for (uint64_t& b : bytes) b += rounds * granule_;
    cursor += rounds * round;
  }
  // At most one more partial round.
  while (cursor < end) {
    const uint64_t take = std::min(granule_, end - cursor);
    bytes[(cursor / granule_) % channels] += take;
    cursor += take;
  }
  return bytes;
}

}  // namespace scoville::models
