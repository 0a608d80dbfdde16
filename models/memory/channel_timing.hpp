// What a memory channel module asks of its service model: when a request's data is done. The
// models keep their own state (busy-until times, open rows), so requests must be presented in
// the order the channel receives them; times count from the last restart() (the controller
// converts).
#pragma once

#include <cstdint>

#include "sim/base/units.hpp"

namespace scoville::models {

class ChannelTiming {
 public:
  virtual ~ChannelTiming() = default;

  // Serves `bytes` at channel-local `address`, arriving at `arrival`; returns when the last data
  // has crossed the channel (the module adds access_latency() on top).
  virtual Duration serve(Duration arrival, uint64_t address, uint64_t bytes, bool write) = 0;
  // Fixed time from a request's data leaving the channel to the requester having it (controller,
  // PHY and on-chip network): it does not occupy the channel.
  virtual Duration access_latency() const = 0;
  // Back to the state at time 0 (closed rows, idle buses), times counted again from 0: a program
  // that starts with a restart sees the same channel whatever ran before it (the op table).
  virtual void restart() = 0;
};

}  // namespace scoville::models
