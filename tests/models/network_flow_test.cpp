// FlowModel: max-min fair sharing with per-path latency.
#include <catch2/catch.hpp>

#include "models/network/flow_model.hpp"

using namespace scoville;
using namespace scoville::models;

namespace {
const Bandwidth kLink = gigabytes_per_second(100);
const Duration kAlpha = nanoseconds(500);
}  // namespace

TEST_CASE("a small message is latency-bound and a large one bandwidth-bound", "[network][flow]") {
  for (const Bytes size : {bytes(64), mib(64)}) {
    FlowModel m({kLink});
    m.add_flow(FlowDemand{{{0, 1.0}}, size, kAlpha});
    const Duration t = m.run_to_completion();
    const Duration beta = size / kLink;
    CHECK(t.si() == Approx((kAlpha + beta).si()).epsilon(1e-12));
    if (size == bytes(64)) CHECK(kAlpha.si() / t.si() > 0.99);
    if (size == mib(64)) CHECK(beta.si() / t.si() > 0.99);
  }
}

TEST_CASE("two flows on one link each get half of it", "[network][flow]") {
  FlowModel m({kLink});
  const Bytes size = mib(8);
  const int32_t a = m.add_flow(FlowDemand{{{0, 1.0}}, size, Duration()});
  const int32_t b = m.add_flow(FlowDemand{{{0, 1.0}}, size, Duration()});
  m.next_completion();
  CHECK(m.rate(a).si() == Approx(kLink.si() / 2));
  CHECK(m.rate(b).si() == Approx(kLink.si() / 2));
  CHECK(m.run_to_completion().si() == Approx(2 * (size / kLink).si()));
}

TEST_CASE("a finished flow frees its share for the others", "[network][flow]") {
  FlowModel m({kLink});
  const Bytes small = mib(1), large = mib(5);
  const int32_t a = m.add_flow(FlowDemand{{{0, 1.0}}, small, Duration()});
  const int32_t b = m.add_flow(FlowDemand{{{0, 1.0}}, large, Duration()});
  m.run_to_completion();
  const double t_small = 2 * small.si() / kLink.si();
  CHECK(m.transmitted_at(a).si() == Approx(t_small));
  CHECK(m.transmitted_at(b).si() == Approx(t_small + (large - small).si() / kLink.si()));
}

TEST_CASE("progressive filling gives the max-min fair rates", "[network][flow]") {
  // Flow A uses link 0, B uses links 0 and 1, C uses link 1; link 0 is the narrower.
  const Bandwidth c0 = gigabytes_per_second(40), c1 = gigabytes_per_second(100);
  FlowModel m({c0, c1});
  const int32_t a = m.add_flow(FlowDemand{{{0, 1.0}}, mib(1), Duration()});
  const int32_t b = m.add_flow(FlowDemand{{{0, 1.0}, {1, 1.0}}, mib(1), Duration()});
  const int32_t c = m.add_flow(FlowDemand{{{1, 1.0}}, mib(1), Duration()});
  m.next_completion();
  CHECK(m.rate(a).si() == Approx(c0.si() / 2));
  CHECK(m.rate(b).si() == Approx(c0.si() / 2));
  CHECK(m.rate(c).si() == Approx(c1.si() - c0.si() / 2));
}

TEST_CASE("a flow split over two paths loads each with its fraction", "[network][flow]") {
  FlowModel m({kLink, kLink});
  const Bytes size = mib(4);
  m.add_flow(FlowDemand{{{0, 0.5}, {1, 0.5}}, size, Duration()});
  CHECK(m.run_to_completion().si() == Approx(size.si() / (2 * kLink.si())));
}

TEST_CASE("a zero-byte flow is delivered after its latency", "[network][flow]") {
  FlowModel m({kLink});
  m.add_flow(FlowDemand{{{0, 1.0}}, bytes(0), kAlpha});
  CHECK(m.run_to_completion().si() == Approx(kAlpha.si()));
}
