"""The shared figure style of the Python tools (tools/plot, the Jalapeño study): matplotlib from
Debian, Agg backend. What scoville report's SVG charts do (sim/output/svg_chart.cpp), here:

- axis titles with units: axis_label(title, unit) writes "title [unit]", "title (count)",
  "title (ratio)" or "title (category)"; metric_axis(column, stored_unit) names a result column
  from the unit its HDF5 file declares (ResultFile.units), a token rate ("1/s") as tok/s;
- readable ticks: 1, 2 or 5 x 10^k (MaxNLocator), labels with thousands separators or an SI
  suffix ("40k"), never an exponent or an offset; a unit an SI prefix applies to (s, J, W, Hz,
  B) takes the prefix in the title instead ("time [ms]", ticks 0 5 10);
- legends outside the plot area, constrained layout, point labels offset from their points and
  dropped when they would overlap other text (drop_overlapping_labels counts them);
- save(figure, path): SVG (text kept as <text>: svg.fonttype = 'none', so tools/check-figures
  can read it), PDF (TrueType fonts embedded) or PNG by the extension, written atomically.
"""

import math
import os
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402

STYLE = {
    "svg.fonttype": "none",
    "pdf.fonttype": 42,
    "font.family": "DejaVu Sans",
    "font.size": 10,
    "axes.titlesize": 10,
    "axes.labelsize": 10,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "figure.constrained_layout.use": True,
    "axes.formatter.useoffset": False,
    # Same inputs, same bytes: SVG element ids from a fixed salt, not a random one.
    "svg.hashsalt": "scoville",
}
MARKERS = ("o", "s", "^", "D", "v", "X", "P")
SI_UNITS = ("s", "J", "W", "Hz", "B", "B/s", "FLOP", "FLOP/s")
PREFIXES = {-9: "n", -6: "\u00b5", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P"}
FORMATS = (".svg", ".pdf", ".png")

# Result columns with a readable title; a "1/s" in the file is this rate (docs/serving.md).
KNOWN_METRICS = {
    "intvty": ("interactivity", "tok/s/user"),
    "tput_per_chip": ("throughput per chip", "tok/s"),
    "tput_per_kw_tdp": ("throughput per kW of TDP", "tok/s/kW"),
    "output_throughput": ("output throughput", "tok/s"),
    "median_ttft_s": ("median time to first token", None),
    "median_tpot_s": ("median time per output token", None),
    "median_e2el_s": ("median end-to-end latency", None),
    "request_time_s": ("request time", None),
    "decode_tokens_per_s": ("decode throughput", "tok/s"),
    "prefill_tokens_per_s": ("prefill throughput", "tok/s"),
    "energy_per_output_token_J": ("energy per output token", None),
    "concurrency": ("concurrency", None),
}


def metadata(extension):
    """savefig metadata that keeps a figure's bytes the same for the same inputs: no creation
    date in SVG and PDF files (PNG from Agg carries none)."""
    if extension in (".svg", "svg"):
        return {"Date": None}
    if extension in (".pdf", "pdf"):
        return {"CreationDate": None}
    return None


def apply_style():
    """Sets the shared rcParams (call before making a figure)."""
    plt.rcParams.update(STYLE)


def axis_label(title, unit):
    if unit in (None, ""):
        return f"{title} (category)"
    if unit in ("1", "count"):
        return f"{title} (count)"
    if unit == "ratio":
        return f"{title} (ratio)"
    return f"{title} [{unit}]"


def metric_axis(column, stored_unit):
    """(title, unit) of a result column from the unit its file declares for it."""
    unit = "count" if stored_unit == "1" else stored_unit
    if column in KNOWN_METRICS:
        title, rate = KNOWN_METRICS[column]
        if rate and stored_unit in ("1/s", "1/(s*kW)"):
            unit = rate
        return title, unit
    return column, unit


def _exponent(magnitude):
    if magnitude <= 0 or not math.isfinite(magnitude):
        return 0
    return max(-9, min(15, int(math.floor(math.log10(magnitude) / 3 + 1e-9)) * 3))


class ReadableFormatter(ticker.Formatter):
    """Tick labels value / 10^exponent with the decimals the tick step needs, thousands
    separators, and `suffix` ("k", "M", or "" when the prefix is in the axis title)."""

    def __init__(self, exponent=0, suffix=""):
        self.factor = 10.0 ** exponent
        self.suffix = suffix
        self.decimals = 0

    def set_locs(self, locs):
        super().set_locs(locs)
        steps = [b - a for a, b in zip(locs, locs[1:]) if b > a]
        step = min(steps) / self.factor if steps else 1.0
        self.decimals = max(0, math.ceil(-math.log10(step) - 1e-9)) if step > 0 else 0

    def __call__(self, value, pos=None):
        if abs(value) < 1e-12 * self.factor:
            return "0"
        return f"{value / self.factor:,.{self.decimals}f}{self.suffix}"


def label_axis(axes, which, title, unit, values):
    """Titles axes' x or y axis with its unit and sets readable ticks for `values` (the data
    drawn on it): an SI unit takes its prefix in the title, another unit's ticks take k/M/G
    from ten thousand up. Returns the label written."""
    finite = [abs(v) for v in values if v is not None and math.isfinite(v)]
    magnitude = max(finite) if finite else 0.0
    axis = axes.xaxis if which == "x" else axes.yaxis
    axis.set_major_locator(ticker.MaxNLocator(nbins=6, steps=[1, 2, 5, 10]))
    shown = unit
    if unit in SI_UNITS:
        exponent = _exponent(magnitude)
        if unit == "s":
            exponent = min(exponent, 0)
        axis.set_major_formatter(ReadableFormatter(exponent))
        shown = PREFIXES[exponent] + unit
    elif magnitude >= 1e4:
        exponent = _exponent(magnitude)
        axis.set_major_formatter(ReadableFormatter(exponent, PREFIXES[exponent]))
    else:
        axis.set_major_formatter(ReadableFormatter())
    label = axis_label(title, shown)
    axis.set_label_text(label)
    return label


def readable_log_tick(value, pos=None):
    """A log axis's tick as a plain number: 0.5, 1.2, 20, 500, 2k, 50k, 1M (never 10^3)."""
    if value <= 0 or not math.isfinite(value):
        return ""
    exponent = _exponent(value) if value >= 1e3 else 0
    shown = value / 10.0 ** exponent
    return f"{shown:.3g}" + PREFIXES[exponent]


def log_axis(axes, which):
    """Puts axes' x or y axis on a log scale with major ticks at 1, 2 and 5 x 10^k, labelled as
    plain numbers (readable_log_tick), and unlabelled minor ticks: matplotlib's own log labels
    are exponents (10^2, 8x10^-1), which tools/check-figures refuses."""
    (axes.set_xscale if which == "x" else axes.set_yscale)("log")
    axis = axes.xaxis if which == "x" else axes.yaxis
    axis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(ticker.FuncFormatter(readable_log_tick))
    axis.set_minor_formatter(ticker.NullFormatter())


def legend_outside(axes, **kwargs):
    """A legend to the right of the plot area (constrained layout makes room for it)."""
    if axes.get_legend_handles_labels()[0]:
        axes.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0, **kwargs)


def annotate(axes, x, y, text):
    """A label beside (x, y), offset 4 points up and right so it does not cover the point."""
    return axes.annotate(text, (x, y), xytext=(4, 4), textcoords="offset points",
                         fontsize="x-small")


def drop_overlapping_labels(figure, labels):
    """Removes each of `labels` (annotations) whose box overlaps other text drawn so far or an
    earlier kept label; returns how many it removed."""
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    others = []
    for axes in figure.axes:
        for text in [axes.xaxis.label, axes.yaxis.label, axes.title]:
            others.append(text.get_window_extent(renderer))
        for tick in axes.get_xticklabels() + axes.get_yticklabels():
            if tick.get_text():
                others.append(tick.get_window_extent(renderer))
    dropped = 0
    for label in labels:
        box = label.get_window_extent(renderer)
        if any(box.overlaps(other) for other in others):
            label.remove()
            dropped += 1
        else:
            others.append(box)
    return dropped


def save(figure, path, dpi=150):
    """Writes `figure` in the format of path's extension (.svg, .pdf, .png), atomically (a
    temporary file beside it, renamed over it), and closes it."""
    extension = os.path.splitext(path)[1].lower()
    if extension not in FORMATS:
        raise ValueError(f"{path}: the figure's extension must be one of {', '.join(FORMATS)}")
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".figure-", suffix=extension, dir=directory)
    os.close(handle)
    try:
        with plt.rc_context(STYLE):
            figure.savefig(temporary, format=extension[1:], dpi=dpi, metadata=metadata(extension))
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
    plt.close(figure)
