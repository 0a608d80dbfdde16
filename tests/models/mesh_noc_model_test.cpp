// The on-chip mesh: XY routes, per-link reservation, port placement. Expected values follow from
// the parameters (bytes / link bandwidth + hops x hop latency).
#include <catch2/catch.hpp>

#include "models/noc/mesh_noc_model.hpp"

using scoville::Bandwidth;
using scoville::Bytes;
using scoville::Duration;
using scoville::models::MeshCoord;
using scoville::models::MeshNocModel;
using scoville::models::MeshNocParams;

namespace {
const MeshNocParams kParams{4, 4, Bandwidth(100e9), Duration(2e-9)};  // 100 GB/s links, 2 ns hops
constexpr double kBytes = 1e6;
const Duration kOccupancy = Bytes(kBytes) / kParams.link_bandwidth;
}  // namespace

TEST_CASE("mesh ports alternate west and east, spread over the rows", "[noc]") {
  const MeshNocModel mesh(kParams, 16, 4);
  CHECK(mesh.port_router(0).x == 0);
  CHECK(mesh.port_router(1).x == kParams.cols - 1);
  // Two ports per side on 4 rows: rows floor(0.5 x 4 / 2) = 1 and floor(1.5 x 4 / 2) = 3.
  CHECK(mesh.port_router(0).y == 1);
  CHECK(mesh.port_router(2).y == 3);
  CHECK(mesh.tile_router(6).x == 2);
  CHECK(mesh.tile_router(6).y == 1);
}

TEST_CASE("an idle mesh delivers after bytes / bandwidth plus one hop latency per link", "[noc]") {
  MeshNocModel mesh(kParams, 16, 4);
  const int64_t tile = 15;  // far corner (3, 3)
  const int64_t hops = MeshNocModel::hops(mesh.port_router(0), mesh.tile_router(tile));
  REQUIRE(hops == 3 + 2);
  const Duration start(1e-6);
  const Duration arrival = mesh.move(0, tile, true, Bytes(kBytes), start);
  CHECK(arrival.si() ==
        Approx((start + kOccupancy + kParams.hop_latency * static_cast<double>(hops)).si()));
  CHECK(mesh.byte_hops() == Approx(kBytes * static_cast<double>(hops)));
}

TEST_CASE("two transfers over one link take turns, disjoint paths do not interfere", "[noc]") {
  MeshNocModel mesh(kParams, 16, 4);
  const MeshCoord port = mesh.port_router(0);  // (0, 1)
  // Tiles 5 and 6 sit at (1, 1) and (2, 1): both routes start with the link (0,1) -> (1,1).
  const Duration first = mesh.move(0, 5, true, Bytes(kBytes), Duration());
  const Duration second = mesh.move(0, 6, true, Bytes(kBytes), Duration());
  CHECK(first.si() == Approx((kOccupancy + kParams.hop_latency).si()));
  const auto hops6 = static_cast<double>(MeshNocModel::hops(port, mesh.tile_router(6)));
  CHECK(second.si() == Approx((kOccupancy * 2.0 + kParams.hop_latency * hops6).si()));
  // Port 1 (east edge, row 1) to tile 7 at (3, 1): its own router, no shared link.
  MeshNocModel other(kParams, 16, 4);
  const Duration a = other.move(0, 4, true, Bytes(kBytes), Duration());  // (0,1) -> (0,1)
  const Duration b = other.move(3, 11, true, Bytes(kBytes), Duration());
  CHECK(a.si() == Approx((kOccupancy + kParams.hop_latency).si()));
  const auto hops_b =
      static_cast<double>(MeshNocModel::hops(other.port_router(3), other.tile_router(11)));
  CHECK(b.si() == Approx((kOccupancy + kParams.hop_latency * std::max(1.0, hops_b)).si()));
}

TEST_CASE("writes travel tile to port and book the reverse links", "[noc]") {
  MeshNocModel mesh(kParams, 16, 4);
  // A read into tile 6 and a write out of tile 6 use opposite directed links: no contention.
  const Duration read = mesh.move(0, 6, true, Bytes(kBytes), Duration());
  const Duration write = mesh.move(0, 6, false, Bytes(kBytes), Duration());
  CHECK(read.si() == Approx(write.si()));
}

TEST_CASE("a mesh too small for the tiles or the ports is refused", "[noc]") {
  CHECK_THROWS_AS(MeshNocModel(kParams, 17, 4), std::invalid_argument);
  CHECK_THROWS_AS(MeshNocModel(kParams, 16, 9), std::invalid_argument);
  MeshNocParams no_bandwidth = kParams;
  no_bandwidth.link_bandwidth = Bandwidth(0);
  CHECK_THROWS_AS(MeshNocModel(no_bandwidth, 16, 4), std::invalid_argument);
}

TEST_CASE("chip-to-chip ports alternate north and south, spread over the columns", "[noc]") {
  const MeshNocModel mesh(kParams, 16, 4, 4);
  CHECK(mesh.io_ports() == 4);
  CHECK(mesh.io_router(0).y == 0);
  CHECK(mesh.io_router(1).y == kParams.rows - 1);
  // Two ports per edge on 4 columns: columns floor(0.5 x 4 / 2) = 1 and floor(1.5 x 4 / 2) = 3.
  CHECK(mesh.io_router(0).x == 1);
  CHECK(mesh.io_router(2).x == 3);
  CHECK_THROWS_AS(MeshNocModel(kParams, 16, 4, 9), std::invalid_argument);
  MeshNocModel copy(kParams, 16, 4, 4);
  CHECK_THROWS_AS(copy.move_io(0, 4, true, Bytes(kBytes), Duration()), std::invalid_argument);
}

TEST_CASE("port traffic crosses the mesh and shares links with tile traffic", "[noc]") {
  MeshNocModel mesh(kParams, 16, 4, 4);
  // Memory port 0 at (0, 1) to I/O port 1 at (1, 3): XY goes east to (1, 1), then south twice.
  const MeshCoord memory = mesh.port_router(0);
  const MeshCoord io = mesh.io_router(1);
  const auto hops = static_cast<double>(MeshNocModel::hops(memory, io));
  REQUIRE(hops == 3);
  const Duration alone = mesh.move_io(0, 1, true, Bytes(kBytes), Duration());
  CHECK(alone.si() == Approx((kOccupancy + kParams.hop_latency * hops).si()));
  CHECK(mesh.byte_hops() == Approx(kBytes * hops));
  // A read into tile 5 at (1, 1) from the same memory port needs the link (0,1) -> (1,1) the
  // port transfer has booked: it waits a whole occupancy.
  const Duration tile = mesh.move(0, 5, true, Bytes(kBytes), Duration());
  CHECK(tile.si() == Approx((kOccupancy * 2.0 + kParams.hop_latency).si()));
  // Data arriving from the port travels the reverse links: no contention with the send.
  MeshNocModel fresh(kParams, 16, 4, 4);
  const Duration out = fresh.move_io(0, 1, true, Bytes(kBytes), Duration());
  const Duration in = fresh.move_io(0, 1, false, Bytes(kBytes), Duration());
  CHECK(in.si() == Approx(out.si()));
}

TEST_CASE("mesh refuses a tile it does not hold", "[noc]") {
  const MeshNocModel mesh(kParams, 12, 4);  // 12 tiles on a 4 x 4 mesh
  CHECK(mesh.tile_router(11).y == 2);
  CHECK_THROWS_AS(mesh.tile_router(12), std::invalid_argument);
  CHECK_THROWS_AS(mesh.tile_router(-1), std::invalid_argument);
}
