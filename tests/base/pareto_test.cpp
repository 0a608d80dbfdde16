// The one Pareto frontier (sim/base/pareto.hpp): InferenceX's rule on hand-checked point sets.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/base/pareto.hpp"

using scoville::pareto_frontier;

TEST_CASE("pareto frontier: the points no other beats on both axes, in increasing x", "[pareto]") {
  // (x, y): (1, 10) (2, 8) (3, 9) (4, 2) (2, 5) (3, 1)
  const std::vector<double> xs = {1, 2, 3, 4, 2, 3};
  const std::vector<double> ys = {10, 8, 9, 2, 5, 1};
  // (2, 8) is beaten by (3, 9); (2, 5) and (3, 1) by (3, 9).
  CHECK(pareto_frontier(xs, ys) == std::vector<size_t>{0, 2, 3});
  // A point equal on x but better on y replaces the other; an exact twin is kept once.
  CHECK(pareto_frontier({1, 1, 1}, {3, 5, 5}) == std::vector<size_t>{1});
  CHECK(pareto_frontier({}, {}).empty());
  CHECK_THROWS(pareto_frontier({1}, {}));
}
