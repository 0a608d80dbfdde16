#include "models/noc/mesh_noc_model.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace scoville::models {

namespace {
constexpr int kDirections = 4;  // east, west, north (y-1), south (y+1)

int64_t side_count(int64_t ports, int side) { return (ports + 1 - side) / 2; }

// Position along an edge of `length` routers of port `port` when ports alternate between two
// opposite edges: each edge's ports spread evenly along it.
int64_t edge_position(int64_t port, int64_t ports, int64_t length) {
  const int side = static_cast<int>(port % 2);
  const int64_t n = side_count(ports, side);
  const int64_t index = port / 2;
  const int64_t at = static_cast<int64_t>((static_cast<double>(index) + 0.5) *
                                          static_cast<double>(length) / static_cast<double>(n));
  return std::min(at, length - 1);
}
}  // namespace

MeshNocModel::MeshNocModel(const MeshNocParams& params, int64_t tiles, int64_t memory_ports,
                           int64_t io_ports)
    : params_(params), tiles_(tiles), memory_ports_(memory_ports), io_ports_(io_ports) {
  if (params.cols < 1 || params.rows < 1 || params.cols * params.rows < tiles) {
    throw std::invalid_argument("MeshNocModel: a " + std::to_string(params.cols) + " x " +
                                std::to_string(params.rows) + " mesh cannot hold " +
                                std::to_string(tiles) + " tiles");
  }
  if (memory_ports < 1 || side_count(memory_ports, 0) > params.rows) {
    throw std::invalid_argument("MeshNocModel: " + std::to_string(memory_ports) +
                                " memory ports do not fit on the edges of " +
                                std::to_string(params.rows) + " rows");
  }
  if (io_ports < 0 || side_count(io_ports, 0) > params.cols) {
    throw std::invalid_argument("MeshNocModel: " + std::to_string(io_ports) +
                                " chip-to-chip ports do not fit on the edges of " +
                                std::to_string(params.cols) + " columns");
  }
  if (params.link_bandwidth.si() <= 0 || params.hop_latency.si() < 0) {
    throw std::invalid_argument("MeshNocModel: link bandwidth must be positive");
  }
  link_free_.assign(static_cast<size_t>(params.cols * params.rows * kDirections), Duration());
}

MeshCoord MeshNocModel::tile_router(int64_t tile) const {
  if (tile < 0 || tile >= tiles_) {
    throw std::invalid_argument("MeshNocModel: no tile " + std::to_string(tile) +
                                " (the mesh holds " + std::to_string(tiles_) + ")");
  }
  return {tile % params_.cols, tile / params_.cols};
}

MeshCoord MeshNocModel::port_router(int64_t port) const {
  return {port % 2 == 0 ? 0 : params_.cols - 1, edge_position(port, memory_ports_, params_.rows)};
}

MeshCoord MeshNocModel::io_router(int64_t io_port) const {
  return {edge_position(io_port, io_ports_, params_.cols), io_port % 2 == 0 ? 0 : params_.rows - 1};
}

int64_t MeshNocModel::hops(MeshCoord a, MeshCoord b) {
  return std::abs(a.x - b.x) + std::abs(a.y - b.y);
}

size_t MeshNocModel::link_index(MeshCoord from, MeshCoord to) const {
  int direction = 0;
  if (to.x > from.x) {
    direction = 0;
  } else if (to.x < from.x) {
    direction = 1;
  } else if (to.y < from.y) {
    direction = 2;
  } else {
    direction = 3;
  }
  return static_cast<size_t>((from.y * params_.cols + from.x) * kDirections + direction);
}

MeshCoord MeshNocModel::next_hop(MeshCoord at, MeshCoord to) {
  if (at.x != to.x) {
    at.x += to.x > at.x ? 1 : -1;
  } else {
    at.y += to.y > at.y ? 1 : -1;
  }
  return at;
}

Duration MeshNocModel::move(int64_t port, int64_t tile, bool to_tile, Bytes bytes, Duration start) {
  if (bytes.si() <= 0) return start;
  const MeshCoord memory = port_router(port);
  const MeshCoord compute = tile_router(tile);
  return to_tile ? route(memory, compute, bytes, start) : route(compute, memory, bytes, start);
}

Duration MeshNocModel::move_io(int64_t port, int64_t io_port, bool to_io, Bytes bytes,
                               Duration start) {
  if (bytes.si() <= 0) return start;
  if (io_port < 0 || io_port >= io_ports_) {
    throw std::invalid_argument("MeshNocModel: no chip-to-chip port " + std::to_string(io_port));
  }
  const MeshCoord memory = port_router(port);
  const MeshCoord io = io_router(io_port);
  return to_io ? route(memory, io, bytes, start) : route(io, memory, bytes, start);
}

Duration MeshNocModel::route(MeshCoord from, MeshCoord to, Bytes bytes, Duration start) {
  const Duration occupancy = bytes / params_.link_bandwidth;
  // The head enters the first router at `start`; each link starts carrying the transfer when
  // both the head has reached it and the link has finished what was booked before. The XY path
  // is walked in place (this runs for every HBM transfer of every tile).
  Duration head = start;
  Duration tail = start + occupancy;
  const int64_t links = hops(from, to);
  for (MeshCoord at = from; at.x != to.x || at.y != to.y;) {
    const MeshCoord next = next_hop(at, to);
    Duration& free = link_free_[link_index(at, next)];
    const Duration link_start = std::max(head, free);
    // A link cannot finish before the previous one has delivered the last byte to it.
    const Duration link_end = std::max(link_start + occupancy, tail);
    free = link_end;
    head = link_start + params_.hop_latency;
    tail = link_end + params_.hop_latency;
    at = next;
  }
  byte_hops_ += bytes.si() * static_cast<double>(links);
  // Injection and ejection: one hop of latency even when memory and tile share a router.
  return links == 0 ? tail + params_.hop_latency : tail;
}

}  // namespace scoville::models
