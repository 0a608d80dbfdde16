"""The Jalapeño study's figures (matplotlib, Agg): each workload's throughput against
interactivity and end-to-end latency (every mapping tried and the frontiers), the one-knob
attribution bars and the inverse grid's consistent fractions. Each is written as PNG and SVG,
in the shared style of scoville.figures (the one tools/plot uses): axis titles with units,
readable ticks, constrained layout, SVG text kept as text for tools/check-figures.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from scoville import figures as shared  # noqa: E402
from scoville.frontier import INFERENCEX_AXES, frontier_rows, inferencex_frontier  # noqa: E402

from . import study  # noqa: E402
from .study import GRID_AXES, RUBIN, TOLERANCE  # noqa: E402


def save(fig, out_base):
    """Writes `fig` as out_base.png and out_base.svg and closes it."""
    for ext in (".png", ".svg"):
        with plt.rc_context(shared.STYLE):
            fig.savefig(out_base + ext, dpi=110 if ext == ".png" else None,
                        metadata=shared.metadata(ext))
    plt.close(fig)


def panel_frontier(frame, x, y, x_higher_better):
    """A panel's frontier, sorted by x. Against interactivity it is InferenceX's, which scoville
    marked (`pareto`); tok/s per kW of TDP is tok/s per chip over one system's constant TDP, so
    its frontier is the same points. Against latency: scoville.frontier's rule."""
    if x == INFERENCEX_AXES[0] and y in (INFERENCEX_AXES[1], "tput_per_kw_tdp"):
        return inferencex_frontier(frame).sort_values(x)
    return frontier_rows(frame, x, y, x_higher_better)


def series_style(name):
    if name.startswith("jalapeno-2048"):
        return {"color": "tab:orange", "marker": "s"}
    if name.startswith("jalapeno"):
        return {"color": "tab:red", "marker": "o"}
    if name == RUBIN:
        return {"color": "tab:blue", "marker": "D"}
    return {"color": "tab:green", "marker": "^"}


def pareto_figure(w, series, out_base):
    shared.apply_style()
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    intvty = shared.axis_label("interactivity", "tok/s/user")
    e2el = shared.axis_label("median end-to-end latency", "s")
    per_chip = shared.axis_label("throughput per chip", "tok/s")
    per_kw = shared.axis_label("throughput per kW of TDP", "tok/s/kW")
    panels = [("intvty", "tput_per_chip", True, intvty, per_chip),
              ("intvty", "tput_per_kw_tdp", True, intvty, per_kw),
              ("e2el_s", "tput_per_chip", False, e2el, per_chip),
              ("e2el_s", "tput_per_kw_tdp", False, e2el, per_kw)]
    for ax, (x, y, higher, xl, yl) in zip(axes.flat, panels):
        for name, frame in series.items():
            frame = frame.assign(e2el_s=frame["median_e2el_s"])
            st = series_style(name)
            ax.scatter(frame[x], frame[y], s=8, alpha=0.25, color=st["color"])
            f = panel_frontier(frame, x, y, higher)
            ax.plot(f[x], f[y], marker=st["marker"], color=st["color"], label=name, ms=4)
        ax.set_xlabel(xl)
        ax.set_ylabel(yl)
        shared.log_axis(ax, "x")
        ax.yaxis.set_major_formatter(shared.ReadableFormatter())
        ax.grid(True, alpha=0.3)
    axes.flat[0].legend(fontsize=8)
    fig.suptitle(f"{w['label']}, 8K/1K, {study.FIDELITY}: Jalapeño-like vs {w['gpu_label']} "
                 "(dots: every mapping tried; lines: Pareto frontiers)", fontsize=10)
    save(fig, out_base)


def attribution_figure(table, out_base):
    knobs = [k for k in table["knob"].unique()]
    shared.apply_style()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, col, title in ((axes[0], "kw_factor", "peak tok/s per kW ratio"),
                           (axes[1], "lat_factor", "latency ratio (best E2E interactivity)")):
        width = 0.8 / max(1, len(study.WORKLOADS))
        for i, w in enumerate(study.WORKLOADS):
            sub = table[table["workload"] == w["key"]].set_index("knob")
            vals = [sub[col].get(k, float("nan")) for k in knobs]
            ax.bar([j + i * width for j in range(len(knobs))], vals, width, label=w["label"])
        ax.axhline(1.0, color="black", lw=0.8)
        ax.set_xticks([j + width for j in range(len(knobs))])
        ax.set_xticklabels(knobs, rotation=20, fontsize=8)
        ax.set_xlabel("knob changed, one at a time (category)")
        ax.set_ylabel("baseline / with the knob changed (ratio)")
        ax.set_title(title, fontsize=9)
        shared.log_axis(ax, "y")
    axes[0].legend(fontsize=8)
    save(fig, out_base)


def inverse_figure(grid, out_base):
    names = [a for a in GRID_AXES if len(grid[a[0]].unique()) > 1] or GRID_AXES[:1]
    shared.apply_style()
    fig, axes = plt.subplots(1, len(names), figsize=(3.2 * len(names), 3.4), squeeze=False)
    for ax, (name, unit, _, _, _) in zip(axes[0], names):
        for w in study.WORKLOADS:
            sub = grid[grid["workload"] == w["key"]]
            if not len(sub):
                continue
            frac = sub.groupby(name)["consistent"].mean()
            ax.plot([str(v) for v in frac.index], frac.values, marker="o", label=w["key"])
        joint = grid.groupby(name)["joint"].mean()
        ax.plot([str(v) for v in joint.index], joint.values, marker="s", color="black",
                label="all workloads")
        # A count per die is a count: tools/check-figures wants the unit in brackets.
        ax.set_xlabel(shared.axis_label(name, "count" if unit == "per die" else unit))
        ax.set_ylim(-0.05, 1.05)
        ax.grid(True, alpha=0.3)
        ax.set_ylabel(f"share within ±{TOLERANCE:.0%} (ratio)")
    axes[0][0].legend(fontsize=7)
    save(fig, out_base)
