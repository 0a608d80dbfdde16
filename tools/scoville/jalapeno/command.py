"""Regenerates docs/jalapeno-study.md and its figures (docs/figures/jalapeno-*.png/.svg).

usage: tools/jalapeno-study [--quick | --full] [--fidelity op-table|roofline] [--scoville BIN]
                            [--jobs N] [--doc FILE] [--figures DIR] [--work DIR] [--fresh]
                            [--wide-timeout S] [--grid full|oat] [--no-wide]

  --quick       few concurrencies, few prompts, a 4-point inverse grid (the ctest smoke test)
  --fidelity    how every scoville run prices an iteration (default op-table, scoville's own
                default: each distinct op simulated once on the SystemC chip model and kept in
                the persistent op cache; roofline: the closed form at the chip's peaks). The
                calibration overlays follow it (<system>.op-table.calibration.yaml at op-table,
                <system>.calibration.yaml at the roofline)
  --full        InferenceX's whole sweep (N every power of two to 1,024, 10 x N requests):
                about 18 times the default's requests
  --scoville    the scoville binary (default: $SCOVILLE_BIN, else build/release/sim/scoville)
  --jobs N      scoville processes at once (default 2)
  --doc FILE    the Markdown report (default docs/jalapeno-study.md)
  --figures DIR where the figures go (default docs/figures)
  --work DIR    the runs' HDF5 files and generated variants (default build/jalapeno-study)
  --measurements CSV  published points for the low-concurrency GPU check (default
                workloads/measurements/published/measurements.csv; skipped when absent)
  --fresh       rerun everything (default: a run whose command line, inputs and binary are
                unchanged is read back from --work)
  --grid        the inverse grid: oat (one parameter at a time; the default at op-table) or
                full (every combination: hours at op-table; the default at the roofline, where
                SRAM and tiles are held); --quick's 4 points are every combination

Every number in the report comes from `scoville inferencex` runs made here, all at one fidelity
(--fidelity), which the report states and each run's output records.

Time: at the roofline the default study takes 12-23 minutes on 2 cores. At the op table (the
default) about 46 minutes on 2 cores for its 355 runs (2026-12-03: 35.1 min for 286 runs beside
the sanitizer suite, then 11.1 min for the 69 grid runs the fixed one-at-a-time grid added; the
op cache partly warm from earlier attempts, the grid's chip variants cold); the longest runs
are the Kimi K2.5 and DeepSeek R1 searches (3-11 min each; docs/performance.md, "The
iteration pricer").
Python 3 with Debian's numpy, pandas, matplotlib and h5py; no other dependency.
"""

import argparse
import os
import sys
import time

from . import study
from .analysis import attribution, score_grid
from .document import build_report, git_commit
from .experiments import (deployed_comparators, low_concurrency_check, low_concurrency_rows,
                          overhead_sweep, run_study, sweep_check, wide_futures)
from .figures import attribution_figure, inverse_figure, pareto_figure
from .runs import Runner, collect, resolve
from .study import FIDELITIES, GRID_AXES, ROOT, RUBIN, Settings
from .variants import transferred_overlay


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--full", action="store_true",
                   help="InferenceX's whole sweep: N every power of two to 1,024, 10 x N "
                        "requests (about 18 times the default's requests)")
    p.add_argument("--scoville", default=os.environ.get(
        "SCOVILLE_BIN", os.path.join(ROOT, "build", "release", "sim", "scoville")))
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--doc", default=os.path.join(ROOT, "docs", "jalapeno-study.md"))
    p.add_argument("--figures", default=os.path.join(ROOT, "docs", "figures"))
    p.add_argument("--work", default=os.path.join(ROOT, "build", "jalapeno-study"))
    p.add_argument("--fresh", action="store_true")
    p.add_argument("--measurements", default=os.path.join(
        ROOT, "workloads", "measurements", "published", "measurements.csv"),
        help="published measurements for the low-concurrency GPU check (skipped if absent)")
    p.add_argument("--no-wide", action="store_true",
                   help="leave out the jalapeno-2048 wide-pool runs")
    p.add_argument("--fidelity", choices=FIDELITIES, default="op-table",
                   help="the fidelity of every scoville run (default op-table, scoville's)")
    p.add_argument("--grid", choices=("full", "oat"),
                   help="inverse grid: every combination, or one parameter at a time (oat; the "
                        "default but for --quick, whose 4 points are every combination)")
    p.add_argument("--wide-timeout", type=float, default=1800,
                   help="seconds a jalapeno-2048 wide-pool run may take (default 1800)")
    return p.parse_args(argv)



def main(argv):
    args = parse_args(argv[1:])
    if args.quick and args.full:
        raise SystemExit("jalapeno-study: --quick and --full exclude each other")
    s = Settings(args.quick, args.full)
    commit = git_commit()  # before this run rewrites the figures
    s.wide_timeout = args.wide_timeout
    # One parameter at a time by default at op-table: the full factorial grid (GRID_AXES: 648
    # points) gives every point a chip of its own whose ops the op table simulates afresh, hours
    # on two cores; the one-at-a-time points take minutes (docs/jalapeno-study.md states the
    # invocation's time). The roofline keeps every combination (its 72 points, SRAM and tiles
    # held, fit the hour), as does --quick (4 points).
    s.grid_mode = args.grid or ("full" if s.quick or args.fidelity == "roofline" else "oat")
    if args.no_wide:
        s.wide = []
    study.configure(args.fidelity, s.workloads)
    t0 = time.time()
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    study.check_nominal_tile()
    study.snapshot_overlays()
    if study.FIDELITY == "roofline":
        # The roofline sees neither (report: the inverse section): their grid values would
        # only repeat the nominal point's runs.
        nominal = {a[0]: a[3] for a in GRID_AXES}
        s.grid.update({n: [nominal[n]] for n in ("sram_mib", "tiles")})
    runner = Runner(args.scoville, work, args.jobs, args.fresh)
    overlay, taken, source_knobs = transferred_overlay(work)
    # Without a source overlay at this fidelity Jalapeño runs uncalibrated, like the GPUs.
    jal_cal = ["--calibration", overlay] if study.calibration_source() else ["--no-calibration"]
    # The low-concurrency check needs no baseline: submitted first, it runs beside the
    # baselines instead of alone at the end (in --quick its search is the longest run).
    low_rows = low_concurrency_rows(args.measurements)
    low_fut = low_concurrency_check(runner, s, work, low_rows)
    deployed_futs = deployed_comparators(runner, s, work)
    base, raw, ablations, grid = run_study(runner, s, work, jal_cal, [])
    check_futs = sweep_check(runner, s, work, base, jal_cal, [])
    overhead_futs = overhead_sweep(runner, s, work, base, overlay)
    wide = wide_futures(runner, s, work, jal_cal)
    checks, overheads = resolve(check_futs), resolve(overhead_futs)
    deployed = {key: [(recipe, cal.result(), raw.result()) for recipe, cal, raw in entries]
                for key, entries in deployed_futs.items()}
    base.update(collect(wide))
    low = (low_rows, low_fut[0].result() if low_fut else None,
           low_fut[1].result() if low_fut else None)
    if not base:
        print("jalapeno-study: every baseline run failed:", file=sys.stderr)
        for f in runner.failures:
            print("  ", f, file=sys.stderr)
        return 1
    grid = score_grid(grid)
    os.makedirs(args.figures, exist_ok=True)
    for w in study.WORKLOADS:
        series = {name: base[(w["key"], name)] for name in
                  ("jalapeno-128", "jalapeno-2048", w["gpu"], RUBIN) if (w["key"], name) in base}
        if series:
            pareto_figure(w, series, os.path.join(args.figures, f"jalapeno-{w['key']}-pareto"))
    elapsed = time.time() - t0
    table = attribution(base, ablations)
    report = build_report(args, s, base, raw, grid, table, checks, overheads, low, deployed,
                          elapsed, runner, source_knobs, commit)
    if len(table):
        attribution_figure(table, os.path.join(args.figures, "jalapeno-attribution"))
    if len(grid):
        inverse_figure(grid, os.path.join(args.figures, "jalapeno-inverse"))
    os.makedirs(os.path.dirname(os.path.abspath(args.doc)), exist_ok=True)
    tmp = args.doc + ".tmp"
    with open(tmp, "w") as f:
        f.write(report)
    os.replace(tmp, args.doc)
    print(f"jalapeno-study: wrote {args.doc} and figures in {args.figures} "
          f"({runner.runs} runs, {len(runner.failures)} failed, {elapsed:.0f} s)")
    return 0
