// Parameters of the chip-to-chip network's parts: links, switches and NICs. Plain data; the
// topology builders turn them into directed links of a Topology.
#pragma once

#include <cstdint>

#include "sim/base/units.hpp"

namespace scoville::models {

// A point-to-point link, the same in both directions.
struct LinkParams {
  int64_t lanes = 1;
  Bandwidth bandwidth_per_lane;  // per direction
  Duration latency;              // wire + SerDes + PHY, one way
  EnergyPerBit energy;           // per bit crossing the link

  Bandwidth bandwidth() const { return bandwidth_per_lane * static_cast<double>(lanes); }
};

// A switch ASIC. Its forwarding latency and energy are charged once per traversal, on the link
// that enters it.
struct SwitchParams {
  int64_t radix = 0;         // ports
  Bandwidth port_bandwidth;  // per port and direction
  Duration latency;          // port-to-port forwarding
  EnergyPerBit energy;       // per bit forwarded
};

// A scale-out NIC: its bandwidth caps the chip's path into the scale-out fabric; its latency and
// energy are charged on the chip-to-leaf link in each direction.
struct NicParams {
  Bandwidth bandwidth;  // per direction
  Duration latency;     // one way, including the chip-to-NIC hop
  EnergyPerBit energy;
};

}  // namespace scoville::models
