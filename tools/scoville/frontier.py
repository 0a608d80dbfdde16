"""The Pareto frontiers of the Python tools: InferenceX's, read from what scoville wrote, and
the one function for any other pair of axes.

InferenceX's frontier is Scoville's to compute: every /points table that `scoville inferencex`
and `scoville serve` write has a `pareto` column, 1 on the frontier (sim/serving/serving_point.cpp,
mark_pareto; docs/results-format.md): a point is on it when no other point has both a higher
interactivity (`intvty`) and a higher throughput per chip (`tput_per_chip`). The Python tools read
that flag (inferencex_frontier) and do not recompute it.

Where a tool needs a frontier over another pair of axes (the Jalapeño study's throughput per kW
against end-to-end latency, a column chosen on `tools/plot pareto`'s command line, a table
without the flag), `frontier` is the only function that computes one. It applies the C++ rule,
so on InferenceX's axes it marks the points scoville marks (tests/tools/frontier_test.py checks
that on a results file scoville writes).
"""

# The axes of InferenceX's frontier, (x, y): the ones the `pareto` column is marked on.
INFERENCEX_AXES = ("intvty", "tput_per_chip")


def frontier(xs, ys, x_higher_better=True):
    """Positions of the points not dominated in (x, y): y is maximised, x maximised when
    x_higher_better (interactivity) and minimised otherwise (latency). Sorted by x, ascending.

    The rule of scoville's mark_pareto: walk the points from the best x (ties: the higher y
    first) and keep a point when its y is higher than every y kept so far.
    """
    sign = 1.0 if x_higher_better else -1.0
    order = sorted(range(len(xs)), key=lambda i: (sign * xs[i], ys[i]), reverse=True)
    kept, best = [], float("-inf")
    for i in order:
        if ys[i] > best:
            kept.append(i)
            best = ys[i]
    return sorted(kept, key=lambda i: xs[i])


def frontier_rows(frame, x, y, x_higher_better=True):
    """The rows of a DataFrame on its frontier in (x, y) (`frontier`), sorted by x."""
    return frame.iloc[frontier(list(frame[x]), list(frame[y]), x_higher_better)]


def inferencex_frontier(points):
    """The rows of a /points table that scoville marked on InferenceX's frontier (`pareto` > 0),
    in the table's order. A table without the column is not one scoville's serving commands
    wrote: KeyError."""
    if "pareto" not in points:
        raise KeyError("no 'pareto' column: not a /points table of scoville inferencex or serve")
    return points[points["pareto"] > 0]
