// HbmChannelModel: a FIFO server at peak channel bandwidth times streaming efficiency.
#include <catch2/catch.hpp>

#include "models/memory/hbm_channel_model.hpp"

using namespace scoville;
using namespace scoville::models;

TEST_CASE("hbm channel occupancy is bytes over efficient bandwidth", "[models][hbm]") {
  HbmParams p;
  p.stacks = 4;
  p.channels_per_stack = 16;
  p.bandwidth_per_channel = gigabytes_per_second(51.2);
  p.streaming_efficiency = 0.85;
  p.latency = nanoseconds(120);
  const HbmChannelModel model(p);
  for (double b : {0.0, 64.0, 4096.0, 1e9}) {
    const double expected = b / (p.bandwidth_per_channel.si() * p.streaming_efficiency);
    CHECK(model.occupancy(Bytes(b)).si() == Approx(expected));
  }
  CHECK(model.access_latency() == p.latency);
  // Doubling the bytes doubles the time; lower efficiency takes proportionally longer.
  CHECK(model.occupancy(kib(8)).si() == Approx(2 * model.occupancy(kib(4)).si()));
  HbmParams slow = p;
  slow.streaming_efficiency = p.streaming_efficiency / 2;
  CHECK(HbmChannelModel(slow).occupancy(kib(4)).si() == Approx(2 * model.occupancy(kib(4)).si()));
  CHECK(p.channels() == p.stacks * p.channels_per_stack);
  CHECK(p.peak_bandwidth().si() ==
        Approx(p.bandwidth_per_channel.si() * static_cast<double>(p.channels())));
}
