"""Figures from Scoville result files (matplotlib from Debian, Agg backend: no display needed),
in the shared style of scoville.figures (axis titles with the units the files declare, readable
ticks, legends outside the plot, no overlapping labels; SVG, PDF or PNG by extension).

- phase_breakdown: per chip, each phase's time by what bounds it and energy by component.
- pareto: InferenceX-style throughput against interactivity, frontier marked (FORMATS.md §7),
  one series per sweep file; the frontier is the one scoville marked (scoville.frontier).
- validation: predicted against measured with the y = x line and the ±15 % and ±25 % bands.
"""

import csv
import math
import os

import matplotlib.pyplot as plt

from scoville import figures
from scoville.frontier import INFERENCEX_AXES, frontier
from scoville.io import ResultFile


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
        units_ops, units_energy = run.units("ops"), run.units("energy")
    # Weight each simulated op by the real iterations its iteration stands for.
    weight = dict(zip(zip(iterations["chip"], iterations["iteration"]), iterations["weight"]))
    phase = dict(zip(zip(iterations["chip"], iterations["iteration"]), iterations["phase"]))
    ops = ops.assign(
        phase=[phase[(c, i)] for c, i in zip(ops["chip"], ops["iteration"])],
        weighted_s=[d * weight[(c, i)] for c, i, d in zip(ops["chip"], ops["iteration"],
                                                          ops["dur_s"])])
    time = ops.pivot_table(index=["chip", "phase"], columns="bound", values="weighted_s",
                           aggfunc="sum", fill_value=0.0)
    time_unit = units_ops.get("dur_s", "s") or "s"
    energy_unit = units_energy.get("energy_J", "J") or "J"
    joules = energy.pivot_table(index=["chip", "phase"], columns="component", values="energy_J",
                                aggfunc="sum", fill_value=0.0)

    figures.apply_style()
    bars = max(len(time), len(joules))
    figure, (left, right) = plt.subplots(1, 2, figsize=(max(9.0, 2.2 * bars + 5), 4.2))
    _stacked(left, time, "phase time", time_unit, "Phase time by bound")
    _stacked(right, joules, "energy", energy_unit, "Phase energy by component")
    figures.save(figure, output)


def _stacked(axes, frame, title, unit, heading):
    """Stacked bars, one per (chip, phase), labelled on two lines so neighbours never touch."""
    labels = [f"{chip}\n{phase}" for chip, phase in frame.index]
    positions = range(len(frame))
    bottom = [0.0] * len(frame)
    for column in frame.columns:
        values = list(frame[column])
        axes.bar(positions, values, bottom=bottom, label=column, width=0.7)
        bottom = [b + v for b, v in zip(bottom, values)]
    axes.set_xticks(list(positions), labels)
    axes.set_xlabel(figures.axis_label("chip and phase", ""))
    figures.label_axis(axes, "y", title, unit, bottom)
    axes.set_title(heading)
    axes.grid(False, axis="x")
    figures.legend_outside(axes)


def pareto(paths, output, y="tput_per_chip", x="intvty", table="points"):
    """One series per file (named after it): each point of `table`, the frontier drawn as a line.

    y is any column of the table, e.g. tput_per_chip or tput_per_kw_tdp. In an SVG, series k's
    points and frontier carry the ids pareto-series-k and pareto-frontier-k.
    """
    figures.apply_style()
    figure, axes = plt.subplots(figsize=(7.5, 4.8))
    units = {}
    all_x, all_y = [], []
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
        all_x += xs
        all_y += ys
        marker = figures.MARKERS[k % len(figures.MARKERS)]
        # Later series smaller, so a point of one never hides another's at the same place.
        series = axes.scatter(xs, ys, s=max(12, 30 - 6 * k), alpha=0.6, marker=marker,
                              label=os.path.basename(path), zorder=3)
        series.set_gid(f"pareto-series-{k}")
        # A scenario sweep's /results gathers the points of many runs: their flags do not
        # hold across them.
        kept = frontier_of(points, x, y, flagged=(name == "points"))
        line, = axes.plot([xs[i] for i in kept], [ys[i] for i in kept], "-", marker=marker,
                          markersize=4, color=series.get_facecolor()[0], zorder=2)
        line.set_gid(f"pareto-frontier-{k}")
    figures.label_axis(axes, "x", *figures.metric_axis(x, units.get(x, "")), all_x)
    figures.label_axis(axes, "y", *figures.metric_axis(y, units.get(y, "")), all_y)
    axes.set_title("Pareto frontier: line; every point: marker")
    figures.legend_outside(axes)
    figures.save(figure, output)


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


def validation(path, output, quantity="value", unit=None):
    """Predicted (y) against measured (x): y = x, the ±15 % and ±25 % bands, labels beside points.

    Log axes when the values span more than two decades (the bands stay parallel lines there).
    `quantity` and `unit` title the axes ("throughput", "tok/s"). Returns the share of points
    within each band.
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
    figures.apply_style()
    figure, axes = plt.subplots(figsize=(7.5, 5.5))
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
    notes = [figures.annotate(axes, m, p, label)
             for m, p, label in zip(measured, predicted, labels) if label]
    if logarithmic:
        figures.log_axis(axes, "x")
        figures.log_axis(axes, "y")
    axes.set_xlim(low, high)
    axes.set_ylim(low, high)
    axes.set_aspect("equal")
    shown = unit or "as in the CSV"
    if not logarithmic:
        figures.label_axis(axes, "x", f"measured {quantity}", unit, [high])
        figures.label_axis(axes, "y", f"predicted {quantity} (Scoville)", unit, [high])
    else:
        axes.set_xlabel(figures.axis_label(f"measured {quantity}", shown))
        axes.set_ylabel(figures.axis_label(f"predicted {quantity}", shown))
    if unit is None:
        axes.set_xlabel(f"measured {quantity} (units as in the CSV)")
        axes.set_ylabel(f"predicted {quantity} (units as in the CSV)")
    axes.set_title("Predicted against measured")
    figures.legend_outside(axes)
    dropped = figures.drop_overlapping_labels(figure, notes)
    if dropped:
        axes.set_title(f"Predicted against measured ({dropped} point labels left out: overlaps)")
    figures.save(figure, output)
    return within
