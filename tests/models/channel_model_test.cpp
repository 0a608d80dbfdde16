// ChannelModel: a FIFO server at peak channel bandwidth times streaming efficiency (HBM), or an
// equal share of the aggregate bandwidth (shared SRAM banks).
#include <catch2/catch.hpp>

#include "models/memory/channel_model.hpp"

using namespace scoville;
using namespace scoville::models;

TEST_CASE("hbm channel occupancy is bytes over efficient bandwidth", "[models][hbm]") {
  HbmParams p;
  p.stacks = 4;
  p.channels_per_stack = 16;
  p.bandwidth_per_channel = gigabytes_per_second(51.2);
  p.streaming_efficiency = 0.85;
  p.latency = nanoseconds(120);
  const ChannelModel model = ChannelModel::hbm(p);
  for (double b : {0.0, 64.0, 4096.0, 1e9}) {
    const double expected = b / (p.bandwidth_per_channel.si() * p.streaming_efficiency);
    CHECK(model.occupancy(Bytes(b)).si() == Approx(expected));
  }
  CHECK(model.access_latency() == p.latency);
  // Doubling the bytes doubles the time; lower efficiency takes proportionally longer.
  CHECK(model.occupancy(kib(8)).si() == Approx(2 * model.occupancy(kib(4)).si()));
  HbmParams slow = p;
  slow.streaming_efficiency = p.streaming_efficiency / 2;
  CHECK(ChannelModel::hbm(slow).occupancy(kib(4)).si() == Approx(2 * model.occupancy(kib(4)).si()));
  CHECK(p.channels() == p.stacks * p.channels_per_stack);
  CHECK(p.peak_bandwidth().si() ==
        Approx(p.bandwidth_per_channel.si() * static_cast<double>(p.channels())));
}

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
