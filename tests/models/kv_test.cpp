// KV placements (blocks to physical places) and the paged block manager.
#include <catch2/catch.hpp>

#include "models/kv/kv_block_manager.hpp"
#include "models/kv/kv_placement.hpp"
#include "sim/base/error.hpp"

using namespace scoville;
using namespace scoville::models;

namespace {
KvPlacementContext context() {
  KvPlacementContext c;
  c.owner = 2;
  c.tp_group = {0, 1, 2, 3};
  c.stacks = 4;
  c.channels_per_stack = 8;
  c.block_tokens = 16;
  c.sram_window_tokens = 64;
  return c;
}
}  // namespace

TEST_CASE("every issue-named placement is registered and unknown names list them", "[kv]") {
  for (const char* n : {"local", "striped", "sram_window", "remote_pool", "disaggregated"}) {
    CHECK(make_kv_placement(n)->name() == n);
  }
  CHECK_THROWS_WITH(make_kv_placement("nowhere"), Catch::Contains("sram_window"));
  CHECK(make_kv_placement("disaggregated")->transfers_prefill_kv());
  CHECK_FALSE(make_kv_placement("local")->transfers_prefill_kv());
}

TEST_CASE("local placement interleaves blocks evenly over every HBM channel", "[kv]") {
  const KvPlacementContext c = context();
  const int64_t channels = c.stacks * c.channels_per_stack;
  const int64_t tokens = c.block_tokens * channels * 3;  // three blocks per channel
  const Bytes per_token(1000);
  const KvTraffic t = kv_traffic(*make_kv_placement("local"), c, tokens, per_token);
  CHECK(t.local_hbm.si() == Approx(per_token.si() * static_cast<double>(tokens)));
  CHECK(t.peer_hbm.si() == 0);
  for (int64_t blocks : t.channel_blocks) CHECK(blocks == 3);
}

TEST_CASE("striped placement reads (n-1)/n of the blocks from the TP peers", "[kv]") {
  const KvPlacementContext c = context();
  const int64_t n = static_cast<int64_t>(c.tp_group.size());
  const int64_t tokens = c.block_tokens * n * 5;
  const KvTraffic t = kv_traffic(*make_kv_placement("striped"), c, tokens, Bytes(1));
  CHECK(t.peer_hbm.si() == Approx(static_cast<double>(tokens * (n - 1) / n)));
  CHECK(t.local_hbm.si() == Approx(static_cast<double>(tokens / n)));
  for (size_t i = 0; i < c.tp_group.size(); ++i) {
    CHECK(t.peer_blocks[i] == (c.tp_group[i] == c.owner ? 0 : 5));
  }
}

TEST_CASE("sram_window keeps the newest window on chip and remote_pool uses the host", "[kv]") {
  const KvPlacementContext c = context();
  const int64_t tokens = 1000;  // 63 blocks, the last one 8 tokens
  const KvTraffic w = kv_traffic(*make_kv_placement("sram_window"), c, tokens, Bytes(1));
  // The newest 64 / 16 = 4 blocks: 3 full and the partial last one.
  CHECK(w.sram.si() == Approx(3 * 16 + 8));
  CHECK(w.local_hbm.si() == Approx(static_cast<double>(tokens) - (3 * 16 + 8)));
  const KvTraffic r = kv_traffic(*make_kv_placement("remote_pool"), c, tokens, Bytes(2));
  CHECK(r.host.si() == Approx(2.0 * tokens));
  CHECK(r.local_hbm.si() == 0);
}

TEST_CASE("the block manager admits by capacity and preempts the youngest", "[kv]") {
  const Bytes per_token(100);
  const int64_t block = 16;
  KvBlockManager m(per_token * (10.0 * block), per_token, block);  // 10 blocks
  CHECK(m.capacity_blocks() == 10);
  CHECK(m.admit(1, 40));  // 3 blocks
  CHECK(m.admit(2, 64));  // 4 blocks
  CHECK(m.admit(3, 33));  // 3 blocks
  CHECK_FALSE(m.admit(4, 1));
  CHECK(m.free_blocks() == 0);
  std::vector<int64_t> evicted;
  m.on_evict = [&evicted](int64_t s) { evicted.push_back(s); };
  // Sequence 1 grows by 25 tokens (40 -> 65 tokens: 3 -> 5 blocks) with none free: 3, the
  // youngest, goes, leaving 10 - 5 - 4 = 1 block free.
  CHECK(m.grow(1, 25));
  CHECK(evicted == std::vector<int64_t>{3});
  CHECK_FALSE(m.holds(3));
  CHECK(m.free_blocks() == 1);
  // The youngest sequence cannot preempt older ones.
  CHECK_FALSE(m.grow(2, 64));
  CHECK(m.tokens_of(2) == 64);
  m.release(2);
  CHECK(m.free_blocks() == 1 + m.blocks_for(64));
}

TEST_CASE("the block manager counted in blocks shrinks a sequence without reordering it", "[kv]") {
  const int64_t block = 16;
  KvBlockManager m(10, block);
  CHECK(m.capacity_blocks() == 10);
  CHECK(m.admit(1, 40));  // 3 blocks
  CHECK(m.admit(2, 20));  // 2 blocks
  m.shrink(1, 32);        // rejected draft positions: 3 -> 2 blocks
  CHECK(m.tokens_of(1) == 32);
  CHECK(m.free_blocks() == 10 - 2 - 2);
  m.shrink(1, 100);  // more than held: nothing changes
  CHECK(m.tokens_of(1) == 32);
  CHECK(m.admission_order() == std::vector<int64_t>{1, 2});
  // 1 is still the older: its growth may preempt 2, never the reverse.
  std::vector<int64_t> evicted;
  m.on_evict = [&evicted](int64_t s) { evicted.push_back(s); };
  CHECK(m.grow(1, 6 * block + 8));  // 32 + 104 = 136 tokens: 9 blocks, 2 must go
  CHECK(evicted == std::vector<int64_t>{2});
  CHECK(m.free_blocks() == 1);
  CHECK_THROWS(KvBlockManager(-1, block));
}

TEST_CASE("the block manager keys sequences by id, released or never seen alike", "[kv]") {
  KvBlockManager m(100, 16);
  CHECK(m.admit(5000, 16));  // a sparse id far past the others: the table grows to hold it
  CHECK(m.admit(0, 1));
  CHECK(m.holds(5000));
  CHECK_FALSE(m.holds(4999));
  CHECK_FALSE(m.holds(1 << 30));  // never seen: not held, no table growth needed to say so
  CHECK(m.tokens_of(123456) == 0);
  m.release(5000);
  CHECK_FALSE(m.holds(5000));
  CHECK(m.tokens_of(5000) == 0);
  CHECK(m.free_blocks() == 99);
  CHECK(m.admit(5000, 32));  // an id may come back after its release
  CHECK(m.tokens_of(5000) == 32);
  CHECK(m.admission_order() == std::vector<int64_t>{0, 5000});
  CHECK_THROWS_AS(m.admit(-1, 16), std::invalid_argument);
  CHECK(m.free_blocks() == 97);  // the refused admission took nothing
  CHECK_FALSE(m.holds(-1));
}
