// On-chip mesh between the compute tiles and the HBM stacks' memory ports, with per-link
// contention. Pure: no SystemC.
//
// Layout. Routers form a cols x rows grid; tile t sits at router (t mod cols, t div cols). The
// memory ports (one per HBM stack) sit on the west and east edges, alternating (port 0 west,
// port 1 east, ...), each side's ports spread evenly over the rows: port p of its side's n ports
// is on row floor((p_side + 0.5) x rows / n). The chip-to-chip (I/O) ports sit on the north and
// south edges the same way (port 0 north, port 1 south, ...), spread evenly over the columns, so
// network traffic between HBM and the links crosses the mesh and contends with tile traffic.
//
// Routing. Dimension-ordered (XY): along the source's row to the destination's column, then
// along that column. Deterministic, deadlock-free, no path diversity.
//
// Timing. Each directed link carries one transfer at a time at `link_bandwidth` (reservation:
// a transfer books each link of its path in order, from when the link is free, like a worm
// whose flits stream through; its head advances one `hop_latency` per router). Transfers book in
// the order they are issued (loosely timed); the last byte arrives when the last link has
// carried it plus one hop.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/base/units.hpp"

namespace scoville::models {

struct MeshNocParams {
  int64_t cols = 0;
  int64_t rows = 0;
  Bandwidth link_bandwidth;  // per link, per direction
  Duration hop_latency;      // router + wire, per hop
};

struct MeshCoord {
  int64_t x = 0;
  int64_t y = 0;
};

class MeshNocModel {
 public:
  // Throws std::invalid_argument when the grid has fewer routers than tiles, when rows cannot
  // take each side's ports, or on a non-positive bandwidth (the chip loader checks these first).
  // `io_ports` chip-to-chip ports (0: none); each edge must have a column for each of its ports.
  MeshNocModel(const MeshNocParams& params, int64_t tiles, int64_t memory_ports,
               int64_t io_ports = 0);

  MeshCoord tile_router(int64_t tile) const;
  MeshCoord port_router(int64_t port) const;
  MeshCoord io_router(int64_t io_port) const;
  // Links on the XY path between two routers (Manhattan distance).
  static int64_t hops(MeshCoord a, MeshCoord b);

  // Moves `bytes` between memory port `port` and tile `tile` (to_tile: a read's data; otherwise
  // a write's), issued at `start`. Returns when the last byte has arrived. Zero bytes: start.
  Duration move(int64_t port, int64_t tile, bool to_tile, Bytes bytes, Duration start);
  // Moves `bytes` between memory port `port` and chip-to-chip port `io_port` (to_io: data read
  // from HBM leaving the chip; otherwise data arriving to be written), issued at `start`.
  Duration move_io(int64_t port, int64_t io_port, bool to_io, Bytes bytes, Duration start);

  // Bytes times links traversed so far (for on-chip network energy per bit and per hop).
  double byte_hops() const { return byte_hops_; }
  const MeshNocParams& params() const { return params_; }
  int64_t memory_ports() const { return memory_ports_; }
  int64_t io_ports() const { return io_ports_; }

 private:
  // Index of the directed link leaving router `from` towards the adjacent router `to`.
  size_t link_index(MeshCoord from, MeshCoord to) const;
  // The router after `at` on the XY route to `to` (x first, then y); `at` must differ from `to`.
  static MeshCoord next_hop(MeshCoord at, MeshCoord to);
  // Books the XY route from `from` to `to` for `bytes` issued at `start`; returns the arrival.
  Duration route(MeshCoord from, MeshCoord to, Bytes bytes, Duration start);

  MeshNocParams params_;
  int64_t tiles_;
  int64_t memory_ports_;
  int64_t io_ports_;
  std::vector<Duration> link_free_;  // per directed link: when it finishes its booked transfers
  double byte_hops_ = 0;
};

}  // namespace scoville::models
