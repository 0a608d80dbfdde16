// Units of the area and cost models: silicon area and money. Stored like every Quantity in SI
// base units (square metres, US dollars); mm^2 and um^2 are the units people quote dies in.
#pragma once

#include "sim/base/units.hpp"

namespace scoville::models {

struct AreaTag {};
struct MoneyTag {};

using Area = Quantity<AreaTag>;    // m^2
using Money = Quantity<MoneyTag>;  // USD

constexpr Area square_millimetres(double v) { return Area(v * 1e-6); }
constexpr Area square_micrometres(double v) { return Area(v * 1e-12); }
constexpr double in_mm2(Area a) { return a.si() * 1e6; }
constexpr Money usd(double v) { return Money(v); }

}  // namespace scoville::models
