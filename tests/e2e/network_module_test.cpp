// NetworkModule: the flow model driven in SystemC time agrees with the pure model.
#include <catch2/catch.hpp>

#include <systemc>

#include "models/chip/run_simulation.hpp"
#include "models/network/network_model.hpp"
#include "models/network/network_module.hpp"
#include "models/network/topology_builders.hpp"
#include "tests/models/network_fixtures.hpp"

using namespace scoville;
using namespace scoville::models;

namespace {

// Runs `work` in an SC_THREAD and records when it returns.
class Driver : public sc_core::sc_module {
 public:
  Driver(const sc_core::sc_module_name& name, std::function<void()> work)
      : sc_core::sc_module(name), work_(std::move(work)) {
    SC_HAS_PROCESS(Driver);
    SC_THREAD(run);
  }
  double finished_at = -1;

 private:
  void run() {
    work_();
    finished_at = sc_core::sc_time_stamp().to_seconds();
  }
  std::function<void()> work_;
};

// The kernel rounds each wake-up up to its resolution (1 ps by default).
constexpr double kPerEvent = 1e-12;

}  // namespace

TEST_CASE("network module: a ring all-reduce in SystemC time matches the pure model",
          "[network][systemc]") {
  const Topology t = build_topology(test::torus_spec({4, 4}));
  const Communicator comm = make_communicator(t, 0);
  const Schedule schedule = collective("all_reduce").find("ring")->expand(comm, mib(16));
  const ScheduleResult expected = NetworkModel(t).time_schedule(schedule);
  NetworkModule net("net", t);
  Driver driver("driver", [&] { net.run_schedule(schedule); });
  models::run_simulation();
  CHECK(driver.finished_at ==
        Approx(expected.time.si()).margin(kPerEvent * 2 * static_cast<double>(expected.steps)));
  CHECK(net.flows_delivered() == expected.flows);
  CHECK(net.energy().si() == Approx(expected.energy.si()));
}

TEST_CASE("network module: a late flow shares the link from its arrival", "[network][systemc]") {
  const TopologySpec spec = test::full_mesh_spec(2);
  const Topology t = build_topology(spec);
  const double B = spec.link.bandwidth().si(), l = spec.link.latency.si();
  const Bytes first = bytes(1e6), second = bytes(2e6);
  const Duration arrival = microseconds(5);
  NetworkModule net("net", t);
  Driver a("a", [&] { net.transfer({{0, 1, first}}); });
  Driver b("b", [&] {
    sc_core::wait(sc_core::sc_time(arrival.si(), sc_core::SC_SEC));
    net.transfer({{0, 1, second}});
  });
  models::run_simulation();
  // Alone at B until the second arrives, then B/2 each; the second then finishes alone.
  const double first_left = first.si() - B * arrival.si();
  REQUIRE(first_left > 0);
  REQUIRE(first_left < second.si());
  const double first_done = arrival.si() + 2 * first_left / B;
  CHECK(a.finished_at == Approx(first_done + l).margin(4 * kPerEvent));
  CHECK(b.finished_at ==
        Approx(first_done + (second.si() - first_left) / B + l).margin(4 * kPerEvent));
  CHECK(net.bytes_delivered() == first + second);
}
