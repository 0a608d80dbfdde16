// The host side of a system: the link each chip has to its host (PCIe, NVLink-C2C) and the host
// memory behind it, which KV placements such as remote_pool reach over that link.
#pragma once

#include <cstdint>

#include "sim/base/units.hpp"

namespace scoville::models {

struct HostParams {
  Bandwidth link_bandwidth;  // chip <-> host, per direction, per chip
  Duration link_latency;     // one way
  EnergyPerBit link_energy;
  Bytes memory_capacity;       // per host
  Bandwidth memory_bandwidth;  // per host, shared by its chips
  int64_t chips_per_host = 1;

  // What one chip can stream from host memory when all chips of the host stream together: the
  // smaller of its link and its share of the host memory.
  Bandwidth per_chip_bandwidth() const {
    const Bandwidth share = memory_bandwidth / static_cast<double>(chips_per_host);
    return share < link_bandwidth ? share : link_bandwidth;
  }
  Bytes per_chip_capacity() const { return memory_capacity / static_cast<double>(chips_per_host); }
};

}  // namespace scoville::models
