// A sweep point named by what it varies: "batch=16, isl=1024" (each axis key without its
// leading `study.` or `scenario.`), for progress lines; its id stays the file name.
#pragma once

#include <string>

#include "sim/sweep/sweep_config.hpp"

namespace scoville::sweep {

std::string point_label(const SweepPoint& point);

}  // namespace scoville::sweep
