"""Figures from Scoville result files (matplotlib from Debian, Agg backend: no display needed).

- phase_breakdown: per chip, each phase's time by what bounds it and energy by component.
- pareto: InferenceX-style throughput against interactivity, frontier marked (FORMATS.md §7),
  one series per sweep file; the frontier is the one scoville marked (scoville.frontier).
- validation: predicted against measured with the y = x line and the ±15 % and ±25 % bands.
"""

import csv
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from scoville.frontier import INFERENCEX_AXES, frontier  # noqa: E402
from scoville.io import ResultFile  # noqa: E402


def frontier_of(points, x, y, flagged=True):
    """Positions of a points table's frontier in (x, y), both maximised, sorted by x.

    On InferenceX's axes of a table scoville marked (`flagged`: one run's /points, with its
    `pareto` column) the rows it marked; otherwise scoville.frontier's rule, the same one.
    """
    if flagged and (x, y) == INFERENCEX_AXES and "pareto" in points:
        marked = [i for i, flag in enumerate(points["pareto"]) if flag > 0]
        return sorted(marked, key=lambda i: points[x].iloc[i])
    return frontier(list(points[x]), list(points[y]))


def phase_breakdown(path, output):
    """Two panels: phase time split by bound (compute / hbm / other), phase energy by component."""
    with ResultFile(path) as run:
        ops = run.table("ops")
        iterations = run.table("iterations")
        energy = run.table("energy")
    # Weight each simulated op by the real iterations its iteration stands for.
    weight = dict(zip(zip(iterations["chip"], iterations["iteration"]), iterations["weight"]))
    phase = dict(zip(zip(iterations["chip"], iterations["iteration"]), iterations["phase"]))
    ops = ops.assign(
        phase=[phase[(c, i)] for c, i in zip(ops["chip"], ops["iteration"])],
        weighted_s=[d * weight[(c, i)] for c, i, d in zip(ops["chip"], ops["iteration"],
                                                          ops["dur_s"])])
    time = ops.pivot_table(index=["chip", "phase"], columns="bound", values="weighted_s",
                           aggfunc="sum", fill_value=0.0)
    joules = energy.pivot_table(index=["chip", "phase"], columns="component", values="energy_J",
                                aggfunc="sum", fill_value=0.0)

    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    labels = [f"{chip}\n{ph}" for chip, ph in time.index]
    _stacked(left, labels, time, "time (s)", "Phase time by bound")
    labels = [f"{chip}\n{ph}" for chip, ph in joules.index]
    _stacked(right, labels, joules, "energy (J)", "Phase energy by component")
    figure.tight_layout()
    figure.savefig(output)
    plt.close(figure)


def _stacked(axes, labels, frame, ylabel, title):
    bottom = [0.0] * len(frame)
    for column in frame.columns:
        values = list(frame[column])
        axes.bar(labels, values, bottom=bottom, label=column)
        bottom = [b + v for b, v in zip(bottom, values)]
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.legend(fontsize="small")


def pareto(paths, output, y="tput_per_chip", x="intvty", table="points"):
    """One series per file (named after it): each point of `table`, the frontier drawn as a line.

    y is any column of the table, e.g. tput_per_chip or tput_per_kw_tdp. In an SVG, series k's
    points and frontier carry the ids pareto-series-k and pareto-frontier-k.
    """
    figure, axes = plt.subplots(figsize=(7, 5))
    units = {}
    for k, path in enumerate(paths):
        with ResultFile(path) as run:
            name = table
            # A scenario sweep's sweep.h5 keeps the serving metrics of its points in /results
            # (its /points is the index of the sweep): docs/sweeps.md.
            if (table == "points" and "results" in run.tables()
                    and run.provenance.get("point_kind") == "scenario"):
                name = "results"
            points = run.table(name)
            units = run.units(name)
        if x not in points or y not in points:
            raise KeyError(f"{path}: table '{name}' needs columns '{x}' and '{y}'")
        xs, ys = list(points[x]), list(points[y])
        series = axes.scatter(xs, ys, s=18, alpha=0.5, label=os.path.basename(path))
        series.set_gid(f"pareto-series-{k}")
        # A scenario sweep's /results gathers the points of many runs: their flags do not
        # hold across them.
        kept = frontier_of(points, x, y, flagged=(name == "points"))
        line, = axes.plot([xs[i] for i in kept], [ys[i] for i in kept], "-o",
                          markersize=4, color=series.get_facecolor()[0])
        line.set_gid(f"pareto-frontier-{k}")
    axes.set_xlabel(f"{x} [{units.get(x, '')}]")
    axes.set_ylabel(f"{y} [{units.get(y, '')}]")
    axes.set_title(f"{y} against {x} (frontier: line)")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(output)
    plt.close(figure)


BANDS = (0.15, 0.25)


def read_validation_csv(path):
    """Rows of a CSV with a header naming predicted, measured and optionally label.

    Returns (predicted, measured, labels). Raises KeyError for a missing column and ValueError
    (naming the line) for a value that is not a positive number.
    """
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        columns = [c.strip() for c in (reader.fieldnames or [])]
        for needed in ("predicted", "measured"):
            if needed not in columns:
                raise KeyError(f"{path}: needs columns 'predicted' and 'measured' "
                               f"(optionally 'label'), has {columns}")
        predicted, measured, labels = [], [], []
        for line, row in enumerate(reader, start=2):
            row = {k.strip(): (v or "").strip() for k, v in row.items() if k is not None}
            try:
                p, m = float(row["predicted"]), float(row["measured"])
            except ValueError:
                raise ValueError(f"{path}:{line}: predicted and measured must be numbers")
            if not (p > 0 and m > 0 and math.isfinite(p) and math.isfinite(m)):
                raise ValueError(f"{path}:{line}: predicted and measured must be positive")
            predicted.append(p)
            measured.append(m)
            labels.append(row.get("label", ""))
    if not predicted:
        raise ValueError(f"{path}: no rows")
    return predicted, measured, labels


def validation_summary(predicted, measured):
    """Relative errors (predicted - measured) / measured and the share within each band."""
    errors = [(p - m) / m for p, m in zip(predicted, measured)]
    within = {band: sum(abs(e) <= band + 1e-12 for e in errors) / len(errors) for band in BANDS}
    return errors, within


def validation(path, output):
    """Predicted (y) against measured (x): y = x, the ±15 % and ±25 % bands, labels beside points.

    Log axes when the values span more than two decades (the bands stay parallel lines there).
    Returns the share of points within each band.
    """
    predicted, measured, labels = read_validation_csv(path)
    _, within = validation_summary(predicted, measured)
    low = min(predicted + measured)
    high = max(predicted + measured)
    logarithmic = high / low > 100
    if logarithmic:
        low, high = low / 1.5, high * 1.5
    else:
        low, high = 0.0, high * 1.1
    figure, axes = plt.subplots(figsize=(6, 6))
    grid = [low + (high - low) * i / 200 for i in range(201)]
    if logarithmic:
        grid = [low * (high / low) ** (i / 200) for i in range(201)]
    for band, alpha in zip(reversed(BANDS), (0.12, 0.22)):
        axes.fill_between(grid, [g * (1 - band) for g in grid], [g * (1 + band) for g in grid],
                          color="tab:green", alpha=alpha, linewidth=0,
                          label=f"±{band:.0%}: {within[band]:.0%} of points",
                          gid=f"validation-band-{round(band * 100)}")
    axes.plot(grid, grid, color="black", linewidth=1, label="y = x", gid="validation-identity")
    points = axes.scatter(measured, predicted, s=22, color="tab:blue", zorder=3)
    points.set_gid("validation-points")
    for m, p, label in zip(measured, predicted, labels):
        if label:
            axes.annotate(label, (m, p), xytext=(4, 4), textcoords="offset points",
                          fontsize="x-small")
    if logarithmic:
        axes.set_xscale("log")
        axes.set_yscale("log")
    axes.set_xlim(low, high)
    axes.set_ylim(low, high)
    axes.set_aspect("equal")
    axes.set_xlabel("measured")
    axes.set_ylabel("predicted (Scoville)")
    axes.set_title("Predicted against measured")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize="small", loc="upper left")
    figure.tight_layout()
    figure.savefig(output)
    plt.close(figure)
    return within
