// AddressInterleaver: granules rotate over the channels (each round by a hashed offset). split()
// is arithmetic over whole rounds; it is checked against a brute-force walk over granules.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <set>
#include <vector>

#include "models/memory/address_interleaver.hpp"

using namespace scoville::models;

namespace {

// Reference: walk [address, address + size) one granule (or partial granule) at a time.
std::vector<uint64_t> brute_force_split(const AddressInterleaver& il, int64_t channels,
                                        uint64_t granule, uint64_t address, uint64_t size) {
  std::vector<uint64_t> bytes(static_cast<size_t>(channels), 0);
  const uint64_t end = address + size;
  for (uint64_t cursor = address; cursor < end;) {
    const uint64_t next = std::min((cursor / granule + 1) * granule, end);
    bytes[static_cast<size_t>(il.channel_of(cursor))] += next - cursor;
    cursor = next;
  }
  return bytes;
}

}  // namespace

TEST_CASE("interleaver channel_of gives each granule of a round its own channel",
          "[models][interleaver]") {
  const int64_t channels = 6;
  const uint64_t granule = 256;
  const AddressInterleaver il(channels, granule);
  const uint64_t per_round = static_cast<uint64_t>(channels);
  std::set<int64_t> round_starts;
  for (uint64_t r = 0; r < 64; ++r) {
    std::set<int64_t> seen;
    for (uint64_t g = r * per_round; g < (r + 1) * per_round; ++g) {
      const int64_t c = il.channel_of(g * granule);
      CHECK(c >= 0);
      CHECK(c < channels);
      // Every byte of a granule is on the granule's channel.
      CHECK(il.channel_of(g * granule + granule - 1) == c);
      CHECK(il.channel_of(g * granule + granule / 2) == c);
      seen.insert(c);
    }
    // A round visits every channel once.
    CHECK(seen.size() == per_round);
    round_starts.insert(il.channel_of(r * per_round * granule));
  }
  // Regions a whole number of rounds apart do not all start on the same channel.
  CHECK(round_starts.size() > 1);
  // One channel: everything maps to it.
  const AddressInterleaver one(1, granule);
  for (uint64_t a : {uint64_t{0}, granule, 12345 * granule + 7}) CHECK(one.channel_of(a) == 0);
}

TEST_CASE("interleaver split matches a brute-force granule walk", "[models][interleaver]") {
  int64_t cases = 0;
  for (int64_t channels : {1, 3, 4, 8}) {
    for (uint64_t granule : {uint64_t{1}, uint64_t{64}, uint64_t{256}, uint64_t{4096}}) {
      const AddressInterleaver il(channels, granule);
      const uint64_t round = granule * static_cast<uint64_t>(channels);
      // Aligned and unaligned addresses and sizes around granule and round boundaries.
      std::vector<uint64_t> addresses = {
          0,         1,     granule - 1,         granule,       granule + 1,
          round - 1, round, round + granule / 2, 3 * round + 7, (1ull << 40) + granule * 5 + 3};
      std::vector<uint64_t> sizes = {0,
                                     1,
                                     granule - 1,
                                     granule,
                                     granule + 1,
                                     round - 1,
                                     round,
                                     round + 1,
                                     2 * round + granule / 3,
                                     5 * round - 1};
      for (uint64_t i = 0; i < 16; ++i) {  // deterministic pseudo-random extras
        addresses.push_back((i * 2654435761ull) % (8 * round) + i);
        sizes.push_back((i * 40503ull + 17) % (4 * round + 3));
      }
      for (uint64_t address : addresses) {
        for (uint64_t size : sizes) {
          const std::vector<uint64_t> got = il.split(address, size);
          const std::vector<uint64_t> want =
              brute_force_split(il, channels, granule, address, size);
          REQUIRE(got.size() == static_cast<size_t>(channels));
          INFO("channels " << channels << " granule " << granule << " address " << address
                           << " size " << size);
          REQUIRE(got == want);
          REQUIRE(std::accumulate(got.begin(), got.end(), uint64_t{0}) == size);
          ++cases;
        }
      }
    }
  }
  CHECK(cases == 4 * 4 * 26 * 26);
}

TEST_CASE("interleaver whole rounds spread evenly", "[models][interleaver]") {
  const int64_t channels = 8;
  const uint64_t granule = 512;
  const AddressInterleaver il(channels, granule);
  const uint64_t round = granule * static_cast<uint64_t>(channels);
  for (uint64_t rounds : {uint64_t{1}, uint64_t{7}, uint64_t{1000}}) {
    // Round-aligned: exactly `rounds` granules per channel.
    for (uint64_t start : {uint64_t{0}, round, 37 * round}) {
      for (uint64_t b : il.split(start, rounds * round)) CHECK(b == rounds * granule);
    }
    // Unaligned: the rounds in the middle are whole, the two partial ends add at most one
    // granule each.
    for (uint64_t start : {granule, granule + 3, round - 1}) {
      const std::vector<uint64_t> got = il.split(start, rounds * round);
      CHECK(std::accumulate(got.begin(), got.end(), uint64_t{0}) == rounds * round);
      for (uint64_t b : got) {
        CHECK(b >= (rounds - 1) * granule);
        CHECK(b <= (rounds + 1) * granule);
      }
    }
  }
}

TEST_CASE("interleaver split of a huge range is cheap and exact", "[models][interleaver]") {
  const int64_t channels = 16;
  const uint64_t granule = 256;
  const AddressInterleaver il(channels, granule);
  const uint64_t round = granule * static_cast<uint64_t>(channels);
  const uint64_t rounds = 1ull << 30;
  const uint64_t head = 2 * granule + 9;  // partial round before the first round boundary
  const uint64_t tail = 3 * granule + 5;  // partial round after the last whole round
  const uint64_t start = round - head;
  const std::vector<uint64_t> got = il.split(start, head + rounds * round + tail);
  const std::vector<uint64_t> head_bytes = brute_force_split(il, channels, granule, start, head);
  const std::vector<uint64_t> tail_bytes =
      brute_force_split(il, channels, granule, round + rounds * round, tail);
  REQUIRE(got.size() == static_cast<size_t>(channels));
  for (size_t c = 0; c < got.size(); ++c) {
    CHECK(got[c] == rounds * granule + head_bytes[c] + tail_bytes[c]);
  }
}

TEST_CASE("interleaver local starts: each channel's first byte, contiguous after it",
          "[models][interleaver]") {
  for (int64_t channels : {1, 3, 8}) {
    for (uint64_t granule : {uint64_t{64}, uint64_t{4096}}) {
      const AddressInterleaver il(channels, granule);
      const uint64_t round = granule * static_cast<uint64_t>(channels);
      for (uint64_t address : {uint64_t{0}, granule - 1, round + granule / 2, 5 * round + 3}) {
        for (uint64_t size : {uint64_t{1}, granule, round + 1, 3 * round + granule / 3}) {
          std::vector<uint64_t> starts;
          const std::vector<uint64_t> bytes = il.split(address, size, &starts);
          // Brute force: the local address of the first byte seen in each channel, and every
          // channel's bytes form one contiguous local range from it.
          std::vector<int64_t> first(static_cast<size_t>(channels), -1);
          std::vector<uint64_t> next(static_cast<size_t>(channels), 0);
          bool contiguous = true;
          for (uint64_t a = address; a < address + size; ++a) {
            const auto c = static_cast<size_t>(il.channel_of(a));
            const uint64_t local = il.local_address(a);
            if (first[c] < 0) {
              first[c] = static_cast<int64_t>(local);
            } else if (local != next[c]) {
              contiguous = false;
            }
            next[c] = local + 1;
          }
          INFO("channels " << channels << " granule " << granule << " address " << address
                           << " size " << size);
          CHECK(contiguous);
          for (size_t c = 0; c < bytes.size(); ++c) {
            if (bytes[c] == 0) continue;
            CHECK(static_cast<int64_t>(starts[c]) == first[c]);
            CHECK(next[c] - starts[c] == bytes[c]);
          }
        }
      }
    }
  }
}

TEST_CASE("interleaver split_pieces lists the channels split_into gives bytes",
          "[models][interleaver]") {
  // The memory controller serves transfers from split_pieces (only the channels touched); it
  // must give every channel the bytes and first local address split_into gives it.
  int64_t cases = 0;
  std::vector<AddressInterleaver::Piece> pieces;
  std::vector<int32_t> slots;
  for (int64_t channels : {1, 3, 8, 128}) {
    for (uint64_t granule : {uint64_t{64}, uint64_t{4096}}) {
      const AddressInterleaver il(channels, granule);
      const uint64_t round = granule * static_cast<uint64_t>(channels);
      for (uint64_t i = 0; i < 64; ++i) {  // deterministic pseudo-random transfers
        const uint64_t address = (i * 2654435761ull) % (8 * round) + (i % 3) * granule;
        const uint64_t size = (i * 40503ull + 17) % (3 * round + 5) + (i % 5 == 0 ? round : 0);
        std::vector<uint64_t> bytes;
        std::vector<uint64_t> starts;
        il.split_into(address, size, bytes, &starts);
        il.split_pieces(address, size, pieces, slots);
        std::vector<uint64_t> got(static_cast<size_t>(channels), 0);
        for (const AddressInterleaver::Piece& p : pieces) {
          REQUIRE(p.channel >= 0);
          REQUIRE(p.channel < channels);
          REQUIRE(got[static_cast<size_t>(p.channel)] == 0);  // one piece per channel
          REQUIRE(p.bytes > 0);
          got[static_cast<size_t>(p.channel)] = p.bytes;
          CHECK(p.local_start == starts[static_cast<size_t>(p.channel)]);
        }
        REQUIRE(got == bytes);
        // The scratch is left clear for the next call.
        for (int32_t s : slots) REQUIRE(s == -1);
        ++cases;
      }
    }
  }
  CHECK(cases == 4 * 2 * 64);
}
