"""Figures from Scoville result files (matplotlib from Debian, Agg backend: no display needed).

- phase_breakdown: per chip, each phase's time by what bounds it and energy by component.
- pareto: InferenceX-style throughput against interactivity, frontier marked (FORMATS.md §7).
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from scoville.io import ResultFile  # noqa: E402


def pareto_frontier(xs, ys):
    """Indices of the points not dominated on both axes (both maximised), sorted by x.

    InferenceX's rule: sort by x, walk from the highest x down, keep a point when its y beats
    every point kept so far.
    """
    order = sorted(range(len(xs)), key=lambda i: (xs[i], ys[i]), reverse=True)
    kept, best = [], float("-inf")
    for i in order:
        if ys[i] > best:
            kept.append(i)
            best = ys[i]
    return sorted(kept, key=lambda i: xs[i])


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
    """One series per file: each point of `table`, the frontier drawn as a line."""
    figure, axes = plt.subplots(figsize=(7, 5))
    for path in paths:
        with ResultFile(path) as run:
            points = run.table(table)
            units = run.units(table)
            label = run.provenance.get("command_line", path)
        if x not in points or y not in points:
            raise KeyError(f"{path}: table '{table}' needs columns '{x}' and '{y}'")
        xs, ys = list(points[x]), list(points[y])
        series = axes.scatter(xs, ys, s=18, alpha=0.5, label=_short(label, path))
        frontier = pareto_frontier(xs, ys)
        axes.plot([xs[i] for i in frontier], [ys[i] for i in frontier], "-o", markersize=4,
                  color=series.get_facecolor()[0])
    axes.set_xlabel(f"{x} [{units.get(x, '')}]")
    axes.set_ylabel(f"{y} [{units.get(y, '')}]")
    axes.set_title("Throughput against interactivity (frontier: line)")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(output)
    plt.close(figure)


def _short(label, path):
    return path if len(label) > 60 else label
