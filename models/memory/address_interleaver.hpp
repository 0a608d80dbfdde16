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
      : channels_(static_cast<uint64_t>(channels)),
        granule_(granule_bytes),
        channel_mask_(channels_ > 0 && (channels_ & (channels_ - 1)) == 0 ? channels_ - 1 : 0) {
    // Shifts replace the divisions of split_pieces when both sizes are powers of two.
    int g = 0;
    while ((uint64_t{1} << g) < granule_) ++g;
    int c = 0;
    while ((uint64_t{1} << c) < channels_) ++c;
    if ((uint64_t{1} << g) == granule_ && (uint64_t{1} << c) == channels_) {
      granule_shift_ = g;
      channel_shift_ = c;
    }
  }

  // One channel's part of a transfer: contiguous in the channel's local address space.
  struct Piece {
    int64_t channel = 0;
    uint64_t local_start = 0;
    uint64_t bytes = 0;
  };

  int64_t channel_of(uint64_t address) const;
  // Address inside its channel: round x granule + offset. A contiguous global range maps to a
  // contiguous range in every channel it touches (each round holds one granule per channel).
  uint64_t local_address(uint64_t address) const {
    return address / granule_ / channels_ * granule_ + address % granule_;
  }

  // Bytes of [address, address + size) that fall in each channel (one entry per channel).
  // Whole rounds are spread arithmetically, so the cost does not grow with the size. With
  // `local_starts`, also the channel-local address of each channel's first byte (0 where none).
  std::vector<uint64_t> split(uint64_t address, uint64_t size,
                              std::vector<uint64_t>* local_starts = nullptr) const;
  // The same into caller-owned buffers (resized to one entry per channel), so that a caller
  // splitting millions of transfers does not allocate for each.
  void split_into(uint64_t address, uint64_t size, std::vector<uint64_t>& bytes,
                  std::vector<uint64_t>* local_starts) const;
  // The same as a list of the channels touched only (in the order first touched), so that a
  // transfer of a few granules costs a few entries rather than one per channel. `slot` is
  // caller-owned scratch (one entry per channel, -1 where no piece; left all -1 on return).
  void split_pieces(uint64_t address, uint64_t size, std::vector<Piece>& pieces,
                    std::vector<int32_t>& slot) const;

 private:
  uint64_t channels_;
  uint64_t granule_;
  uint64_t channel_mask_;   // channels - 1 when a power of two (a mask replaces the modulo), else 0
  int granule_shift_ = -1;  // log2 granule and log2 channels when both are powers of two, else -1
  int channel_shift_ = -1;
};

}  // namespace scoville::models
