// The one Pareto frontier of Scoville (InferenceX's rule), used by the serving sweeps to mark
// their points and by every report that draws a frontier; the Python tools read the `pareto`
// column the C++ side writes instead of computing their own.
#pragma once

#include <cstddef>
#include <vector>

namespace scoville {

// Indices of the points not dominated when both coordinates are better higher: sorted by x
// descending (then y descending), a point is kept when its y beats every point kept so far.
// Returned in increasing x. Ties in both coordinates keep the first point only.
std::vector<size_t> pareto_frontier(const std::vector<double>& xs, const std::vector<double>& ys);

}  // namespace scoville
