// ChannelModel: a shared SRAM bank is a FIFO server at an equal share of the aggregate bandwidth.
#include <catch2/catch.hpp>

#include "models/memory/channel_model.hpp"

using namespace scoville;
using namespace scoville::models;

TEST_CASE("a shared sram bank gets an equal share of the aggregate bandwidth", "[models][sram]") {
  SharedSramParams p;
  p.capacity = mib(50);
  p.bandwidth = terabytes_per_second(10);
  p.banks = 64;
  const ChannelModel bank = ChannelModel::shared_sram_bank(p, nanoseconds(150));
  CHECK(bank.sustained().si() == Approx(p.bandwidth.si() / static_cast<double>(p.banks)));
  CHECK(bank.access_latency() == nanoseconds(150));
  CHECK(bank.occupancy(kib(4)).si() == Approx(4096.0 / bank.sustained().si()));
}

TEST_CASE("a shared sram bank queues requests in arrival order", "[models][sram]") {
  SharedSramParams p;
  p.capacity = mib(8);
  p.bandwidth = terabytes_per_second(1);
  p.banks = 4;
  ChannelModel bank = ChannelModel::shared_sram_bank(p, nanoseconds(10));
  const Duration one = bank.occupancy(kib(4));
  // Two requests arriving together: the second waits for the first.
  CHECK(bank.serve(Duration(0), 0, 4096, false).si() == Approx(one.si()));
  CHECK(bank.serve(Duration(0), 4096, 4096, true).si() == Approx(2 * one.si()));
  // One arriving after the bank went idle starts at its arrival.
  const Duration later = one * 10.0;
  CHECK(bank.serve(later, 0, 4096, false).si() == Approx((later + one).si()));
}
