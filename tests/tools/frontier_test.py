#!/usr/bin/python3
"""tools/scoville/frontier.py, the Python tools' one Pareto frontier: the rule on hand-checked
points (both directions of x, ties), and on a results file scoville writes it marks exactly the
points scoville's own `pareto` column marks (the C++ frontier), which inferencex_frontier reads.
usage: frontier_test.py SCOVILLE SOURCE_DIR WORKDIR
"""
import os
import subprocess
import sys

SCOVILLE, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.join(SOURCE, "tools"))
import pandas as pd  # noqa: E402

from scoville.frontier import (INFERENCEX_AXES, frontier, frontier_rows,  # noqa: E402
                               inferencex_frontier)
from scoville.io import ResultFile  # noqa: E402

os.makedirs(WORK, exist_ok=True)
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


# Points (0.5,7) (1,6) (2,7.5) (3,1) (1.5,0.5). x maximised: (3,1) has the best x, (2,7.5) more
# y; every other point has less x and less y than (2,7.5). Kept, by x: (2,7.5), (3,1).
xs, ys = [0.5, 1, 2, 3, 1.5], [7, 6, 7.5, 1, 0.5]
check(frontier(xs, ys) == [2, 3], f"frontier {frontier(xs, ys)}")
check(frontier([5], [5]) == [0], "single point")
check(frontier([], []) == [], "no points")
# x minimised (a latency): (0.5,7) has the best x, (2,7.5) more y; the rest are beaten.
check(frontier(xs, ys, x_higher_better=False) == [0, 2], f"{frontier(xs, ys, False)}")
# (1,1) (2,3) (3,2) with x minimised: (1,1) best x, (2,3) more y, (3,2) beaten by (2,3).
check(frontier([1, 2, 3], [1, 3, 2], x_higher_better=False) == [0, 1], "latency frontier")
# Ties in x: only the higher y; equal points: one of them.
check(frontier([1, 1], [2, 5]) == [1], f"tie in x {frontier([1, 1], [2, 5])}")
check(len(frontier([1, 1], [2, 2])) == 1, "equal points")
frame = pd.DataFrame({"e2el_s": [3.0, 1.0, 2.0], "tput": [9.0, 1.0, 5.0]}, index=[10, 11, 12])
rows = frontier_rows(frame, "e2el_s", "tput", x_higher_better=False)
check(list(rows.index) == [11, 12, 10], f"frontier rows by latency {list(rows.index)}")
try:
    inferencex_frontier(frame)
    check(False, "a table without `pareto` was read as flagged")
except KeyError:
    pass

# A real sweep: scoville marks its frontier in C++ (mark_pareto); the Python rule agrees.
out = os.path.join(WORK, "search.h5")
ran = subprocess.run([SCOVILLE, "inferencex", "--fidelity", "roofline", "--system", "h200",
                      "--chips", "8", "--model", "llama-3.1-8b", "--isl", "1024", "--osl", "128",
                      "--concurrency", "1,4,16,64", "--search", "-o", out, "--quiet"],
                     capture_output=True, text=True,
                     env=dict(os.environ, SCOVILLE_DATA_DIR=SOURCE,
                              SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1"))
check(ran.returncode == 0, f"scoville inferencex: {ran.stderr[-2000:]}")
if ran.returncode == 0:
    with ResultFile(out) as f:
        points = f.table("points")
    x, y = INFERENCEX_AXES
    marked = set(inferencex_frontier(points).index)
    python = set(points.index[frontier(list(points[x]), list(points[y]))])
    check(marked == python, f"C++ marks {sorted(marked)}, Python {sorted(python)}")
    # Not a trivial agreement: several points on the frontier and many off it.
    check(len(marked) >= 3 and len(points) - len(marked) >= 10,
          f"{len(marked)} of {len(points)} points on the frontier")
    # The rows the flag marks are the ones frontier_rows gives, in x order.
    rows = frontier_rows(points, x, y)
    check(list(rows.index) == list(inferencex_frontier(points).sort_values(x).index),
          "frontier_rows and the flag in x order")

if failures:
    print("FAILED:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("frontier: all checks passed")
