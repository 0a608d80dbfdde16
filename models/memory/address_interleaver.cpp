#include "models/memory/address_interleaver.hpp"

#include <algorithm>

namespace scoville::models {

namespace {
// SplitMix64 finaliser: a well-mixed, deterministic offset per round.
uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
}  // namespace

int64_t AddressInterleaver::channel_of(uint64_t address) const {
  const uint64_t granule = address / granule_;
  if (channel_mask_ != 0) {
    const uint64_t round = granule / (channel_mask_ + 1);
    return static_cast<int64_t>(((granule & channel_mask_) + mix(round)) & channel_mask_);
  }
  const uint64_t round = granule / channels_;
  return static_cast<int64_t>((granule % channels_ + mix(round)) % channels_);
}

std::vector<uint64_t> AddressInterleaver::split(uint64_t address, uint64_t size,
                                                std::vector<uint64_t>* local_starts) const {
  std::vector<uint64_t> bytes;
  split_into(address, size, bytes, local_starts);
  return bytes;
}

void AddressInterleaver::split_into(uint64_t address, uint64_t size, std::vector<uint64_t>& bytes,
                                    std::vector<uint64_t>* local_starts) const {
  bytes.assign(channels_, 0);
  if (local_starts != nullptr) local_starts->assign(channels_, 0);
  uint64_t cursor = address;
  const uint64_t end = address + size;
  const uint64_t round_bytes = granule_ * channels_;
  // Granule by granule up to a round boundary (at most one round).
  auto walk_to = [&](uint64_t stop) {
    while (cursor < stop) {
      const uint64_t take = std::min(granule_ - cursor % granule_, stop - cursor);
      const size_t channel = static_cast<size_t>(channel_of(cursor));
      if (local_starts != nullptr && bytes[channel] == 0) {
        (*local_starts)[channel] = local_address(cursor);
      }
      bytes[channel] += take;
      cursor += take;
    }
  };
  walk_to(std::min(end, (cursor / round_bytes + 1) * round_bytes));
  // Whole rounds touch every channel with one granule each, whatever the rotation.
  const uint64_t rounds = (end - cursor) / round_bytes;
  if (rounds > 0) {
    for (size_t c = 0; c < bytes.size(); ++c) {
      if (local_starts != nullptr && bytes[c] == 0) (*local_starts)[c] = local_address(cursor);
      bytes[c] += rounds * granule_;
    }
    cursor += rounds * round_bytes;
  }
  walk_to(end);
}

void AddressInterleaver::split_pieces(uint64_t address, uint64_t size, std::vector<Piece>& pieces,
                                      std::vector<int32_t>& slot) const {
  pieces.clear();
  slot.resize(channels_, -1);
  uint64_t cursor = address;
  const uint64_t end = address + size;
  const uint64_t round_bytes = granule_ * channels_;
  const auto add = [&](int64_t channel, uint64_t first, uint64_t bytes) {
    int32_t& s = slot[static_cast<size_t>(channel)];
    if (s < 0) {
      s = static_cast<int32_t>(pieces.size());
      pieces.push_back({channel, local_address(first), 0});
    }
    pieces[static_cast<size_t>(s)].bytes += bytes;
  };
  // As split_into: granule by granule up to a round boundary, whole rounds arithmetically, then
  // the rest granule by granule.
  auto walk_to = [&](uint64_t stop) {
    if (granule_shift_ >= 0) {
      // Powers of two: the same channels and local addresses as channel_of and local_address,
      // by shifts and masks, and the round's hash once per round.
      const uint64_t granule_mask = granule_ - 1;
      uint64_t hashed_round = ~uint64_t{0};
      uint64_t offset = 0;
      while (cursor < stop) {
        const uint64_t take = std::min(granule_ - (cursor & granule_mask), stop - cursor);
        const uint64_t granule = cursor >> granule_shift_;
        const uint64_t round = granule >> channel_shift_;
        if (round != hashed_round) {
          hashed_round = round;
          offset = mix(round);
        }
        const auto channel =
            static_cast<int64_t>(((granule & channel_mask_) + offset) & channel_mask_);
        int32_t& s = slot[static_cast<size_t>(channel)];
        if (s < 0) {
          s = static_cast<int32_t>(pieces.size());
          pieces.push_back({channel, (round << granule_shift_) + (cursor & granule_mask), 0});
        }
        pieces[static_cast<size_t>(s)].bytes += take;
        cursor += take;
      }
      return;
    }
    while (cursor < stop) {
      const uint64_t take = std::min(granule_ - cursor % granule_, stop - cursor);
      add(channel_of(cursor), cursor, take);
      cursor += take;
    }
  };
  walk_to(std::min(end, (cursor / round_bytes + 1) * round_bytes));
  const uint64_t rounds = (end - cursor) / round_bytes;
  if (rounds > 0) {
    // Every granule of a round has the same local address (the round's), whatever its channel.
    for (uint64_t c = 0; c < channels_; ++c) {
      add(static_cast<int64_t>(c), cursor, rounds * granule_);
    }
    cursor += rounds * round_bytes;
  }
  walk_to(end);
  for (const Piece& p : pieces) slot[static_cast<size_t>(p.channel)] = -1;
}

}  // namespace scoville::models
