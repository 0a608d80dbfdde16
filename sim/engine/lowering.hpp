// Workload ops -> the plain work descriptors a chip executes (the only place where workload and
// hardware types meet, so that models/ never sees a workload type).
#pragma once

#include "models/chip/chip_params.hpp"
#include "models/compute/work_descriptor.hpp"
#include "workloads/op.hpp"

namespace scoville::engine {

// Chooses the math precision the chip runs the op at (the op's own if supported, else the next
// wider one the engine has) and carries over shape, FLOPs and bytes. Throws InputError when the
// chip supports no precision wide enough (cannot happen with BF16-capable chips).
models::WorkDescriptor lower(const workloads::Op& op, const models::ChipParams& chip);

}  // namespace scoville::engine
