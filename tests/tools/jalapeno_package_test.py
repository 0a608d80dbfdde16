#!/usr/bin/python3
"""The Jalapeño study's package (tools/scoville/jalapeno) part by part, on made-up inputs whose
answers are known by hand: the study's sizes and the nominal chip (study), the generated input
files (variants), command lines and the run cache key (runs), the grid's points and the frontier
pairs the ablations replay (experiments), peaks, ratios, attribution and the grid's verdicts
(analysis), the figures' frontiers (figures) and the attribution table (document). The whole
command is tests/tools/jalapeno_study_test.py.
usage: jalapeno_package_test.py SCOVILLE SOURCE_DIR WORKDIR (SCOVILLE is not used)
"""
import math
import os
import shutil
import sys

SOURCE, WORK = sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.join(SOURCE, "tools"))
import pandas as pd  # noqa: E402

from scoville.jalapeno import (analysis, document, experiments, figures, runs,  # noqa: E402
                               study, variants)

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def close(a, b, rel=1e-12):
    return abs(a - b) <= rel * max(abs(a), abs(b))


# --- study
quick, default, full = study.Settings(True), study.Settings(False), study.Settings(False, True)
check([w["key"] for w in quick.workloads] == ["gptoss"] and quick.concurrency == [1, 8],
      "--quick: one workload at N = 1, 8")
check(len(default.workloads) == 3 and default.concurrency == [1, 64, 512], "default sweep")
check(full.concurrency == [2**i for i in range(11)] and full.prompts == study.LONG_PROMPTS,
      "--full: InferenceX's sweep")
check(quick.chips(128) == 16 and default.chips(128) == 128, "chips")
study.check_nominal_tile()  # the arch/ chip is the grid's nominal point (SystemExit otherwise)
check(study.overlay_file("gb200-nvl72", "roofline")
      == "arch/systems/gb200-nvl72.calibration.yaml", "roofline overlay name")
check(study.overlay_file("gb200-nvl72", "op-table")
      == "arch/systems/gb200-nvl72.op-table.calibration.yaml", "op-table overlay name")
try:
    study.configure("cycle", study.ALL_WORKLOADS)
    check(False, "an unknown fidelity was accepted")
except ValueError:
    pass
study.configure("op-table", study.ALL_WORKLOADS)
study.snapshot_overlays()
expected = os.path.exists(os.path.join(
    SOURCE, "arch", "systems", "gb200-nvl72.op-table.calibration.yaml"))
check((study.calibration_source() is not None) == expected, "calibration source found")

# --- variants
text = "chip:\n  name: a  # keep\n  hbm:\n    capacity: 1 GB  # source\n  name2: b\n"
out = variants.set_yaml_value(text, "chip.hbm.capacity", "2 GB", "[ASSUMPTION] t")
check(out == "chip:\n  name: a  # keep\n  hbm:\n    capacity: 2 GB  # [ASSUMPTION] t\n"
      "  name2: b\n", f"set_yaml_value: {out!r}")
try:
    variants.set_yaml_value(text, "chip.capacity", 1, "t")
    check(False, "a missing key was set")
except KeyError:
    pass
out = variants.set_yaml_value(text, "chip.hbm.bandwidth", "3 TB/s", "t", add_missing=True)
check(out == "chip:\n  name: a  # keep\n  hbm:\n    capacity: 1 GB  # source\n"
      "    bandwidth: 3 TB/s  # t\n  name2: b\n", f"a missing key added to its block: {out!r}")
out = variants.set_yaml_value("chip:\n  name: a\n  hbm:\n    capacity: 1 GB\nother: 1\n",
                              "chip.area", "1 mm2", "t", add_missing=True)
check(out == "chip:\n  name: a\n  hbm:\n    capacity: 1 GB\n  area: 1 mm2  # t\nother: 1\n",
      f"added after the block's last line, nested blocks included: {out!r}")
try:
    variants.set_yaml_value(text, "board.hbm", 1, "t", add_missing=True)
    check(False, "a key under a missing block was added")
except KeyError:
    pass
path = os.path.join(WORK, "gen", "a.yaml")
variants.write_input_file(path, "x: 1\n")
inode = os.stat(path).st_ino
variants.write_input_file(path, "x: 1\n")
check(os.stat(path).st_ino == inode, "an unchanged file was rewritten")
variants.write_input_file(path, "x: 2\n")
check(open(path).read() == "x: 2\n", "a changed file was not written")
# An overlay inheriting another's knobs, overriding one class of one knob.
with open(os.path.join(WORK, "parent.calibration.yaml"), "w") as f:
    f.write("calibration:\n  knobs:\n    compute_efficiency: {matmul: 0.5, attention: 0.6}\n"
            "    per_iteration_overhead: 1 ms\n")
child = os.path.join(WORK, "child.calibration.yaml")
with open(child, "w") as f:
    f.write("calibration:\n  inherits: parent\n  overrides:\n"
            "    compute_efficiency: {matmul: 0.7}\n")
knobs = variants.resolved_knobs(child)
check(knobs == {"compute_efficiency": {"matmul": 0.7, "attention": 0.6},
                "per_iteration_overhead": "1 ms"}, f"resolved knobs {knobs}")
check(variants.inherited_overlays(child) == [os.path.join(WORK, "parent.calibration.yaml")],
      "inherited overlays")
# Half as many tiles: each twice as wide, the die's totals kept.
point = {a[0]: a[3] for a in study.GRID_AXES}
point["tiles"] = 32
chip, system = variants.grid_files(WORK, point)
chip_text = open(chip).read()
for want in ("count: 32", "cols: 256", "flops_per_cycle: 4096", "sram: 4096 KiB",
             "sram_bandwidth: 4000 GB/s", "capacity: 128 MiB", "banks: 32"):
    check(want + "  # [ASSUMPTION] jalapeno-study variant" in chip_text, f"grid chip: {want}")
check("latency: 200 ns  # [ASSUMPTION]" in open(system).read(), "grid system links")
base_overlay = os.path.join(WORK, "transferred.calibration.yaml")
with open(base_overlay, "w") as f:
    f.write("calibration:\n  knobs:\n    per_iteration_overhead: 0 s  # persistent kernels\n")
over = open(variants.overhead_overlay(WORK, base_overlay, 2)).read()
check("per_iteration_overhead: 2 ms  # [ASSUMPTION] jalapeno-study overhead sweep" in over,
      f"overhead overlay {over!r}")

# --- runs
args = runs.base_args("m", "jalapeno-128", 16, "persistent-kernels", [1, 8], 2, mtp=True,
                      cal=["--no-calibration"])
check(args[args.index("--fidelity") + 1] == "op-table" and "--no-calibration" in args
      and args[args.index("--concurrency") + 1] == "1,8"
      and args[args.index("--mtp-depth") + 1] == str(study.MTP_DEPTH), f"base_args {args}")
study.configure("roofline", study.ALL_WORKLOADS)
args = runs.base_args("m", "s", 1, "sw", [1], 1, cal=["--no-calibration"])
check(args[args.index("--fidelity") + 1] == "roofline", "base_args: the configured fidelity")
study.configure("op-table", study.ALL_WORKLOADS)
row = {"mapping": "tp8-ep8-dpa8", "tp": 8, "ep": 8, "attn_dp": 8}
check(runs.mapping_args(row, WORK) == ["--tp", "8", "--ep", "8", "--attn-dp", "8"],
      f"mapping_args {runs.mapping_args(row, WORK)}")
row = {"mapping": "prefill:tp4+decode:tp8", "tp": 8, "ep": 1, "attn_dp": 1}
m = runs.mapping_args(row, WORK)
check(m[0] == "--mapping" and "prefill: {chips: 4, tp: 4, ep: 4}" in open(m[1]).read(),
      f"disaggregated mapping_args {m}")
runner = runs.Runner("/bin/true", WORK, 1, False)
key = runner._key(["--system", path])
check(key == runner._key(["--system", path]), "the run key is not stable")
variants.write_input_file(path, "x: 3\n")
check(key != runner._key(["--system", path]), "an input file's content is not in the run key")

# --- analysis: Jalapeño and GPU points by hand
jal = pd.DataFrame({"tput_per_chip": [100.0, 300.0], "tput_per_kw_tdp": [100 / 0.7, 300 / 0.7],
                    "tput_per_kw_sim": [200.0, 600.0], "median_e2e_intvty": [50.0, 10.0],
                    "median_e2el_s": [1.0, 4.0]})
gpu = pd.DataFrame({"tput_per_chip": [60.0, 200.0], "tput_per_kw_tdp": [50.0, 200 / 1.2],
                    "tput_per_kw_sim": [100.0, 300.0], "median_e2e_intvty": [25.0, 5.0],
                    "median_e2el_s": [2.0, 6.0]})
r = analysis.ratios(jal, gpu)
check(close(r["chip"], 1.5) and close(r["kw_tdp"], 300 / 0.7 / (200 / 1.2))
      and close(r["kw_sim"], 2.0) and close(r["lat_best"], 2.0), f"ratios {r}")
# T* = half the lower peak = 100: the GPU reaches it only at 6 s, Jalapeño at 1 s.
check(close(r["t_star"], 100.0) and close(r["lat_iso"], 6.0), f"iso-throughput {r}")
check(math.isnan(analysis.latency_at(jal, 1000.0)), "latency_at past the peak")
w = study.ALL_WORKLOADS[0]
base = {("gptoss", "jalapeno-128"): jal, ("gptoss", w["gpu"]): gpu}
network = jal.assign(tput_per_chip=jal["tput_per_chip"] / 2,
                     tput_per_kw_tdp=jal["tput_per_kw_tdp"] / 2)
study.configure("op-table", study.ALL_WORKLOADS[:1])
table = analysis.attribution(base, {("gptoss", "network"): network})
check(list(table["knob"]) == ["network", "power", "rest"], f"knobs {list(table['knob'])}")
by = table.set_index("knob")
check(close(by.loc["network", "kw_factor"], 2.0) and close(by.loc["network", "lat_factor"], 1.0),
      "network factor")
check(close(by.loc["power", "kw"], 2.0), "power: the simulated-power ratio")
check(close(by.loc["rest", "kw_factor"], r["kw_tdp"] / 2.0), "rest leaves power out")
check(close(by.loc["network", "kw_factor_replay"], 2.0), "no search: the replay's factor")
lines = []
document.attribution_section(lines.append, table)
check(f"| gptoss | network | {document.ATTRIBUTION_WHAT['network']} | "
      f"{r['kw_tdp'] / 2:.2f} | 2.00 | 2.00 | 2.00 | 1.00 | 1.00 |" in lines, "attribution row")
check(any(line.startswith("Searching again moves no factor") for line in lines),
      "a replay alone moves nothing")
# The knob's own search finds a mapping the replay did not run: the searched factor reads the
# best of both (here the search's peak is the baseline's again: factor 1), the replay's is kept.
searched = jal.assign(tput_per_chip=jal["tput_per_chip"], tput_per_kw_tdp=jal["tput_per_kw_tdp"])
table = analysis.attribution(base, {("gptoss", "network"): network,
                                    ("gptoss", "network", analysis.SEARCHED): searched})
by = table.set_index("knob")
check(close(by.loc["network", "kw_factor"], 1.0)
      and close(by.loc["network", "kw_factor_replay"], 2.0), "searched against replayed factor")
check(close(by.loc["rest", "kw_factor"], r["kw_tdp"])
      and close(by.loc["rest", "kw_factor_replay"], r["kw_tdp"] / 2.0),
      "rest from the searched factors, and from the replayed ones")
lines = []
document.attribution_section(lines.append, table)
check(any(line.startswith("Searching again moves these factors") and "gptoss network" in line
          for line in lines), "the moved factor is named")
check(document.fmt(float("nan")) == "n/a" and document.fmt(1.234) == "1.23", "fmt")
pub_kw, pub_lat = w["pub_kw"], w["pub_lat"]
axes = {a[0]: a[3] for a in study.GRID_AXES}
grid = pd.DataFrame([
    dict(axes, workload="gptoss", feasible=True, kw=pub_kw * 1.1, lat=pub_lat * 0.9),
    dict(axes, hbm_gb=192, workload="gptoss", feasible=True, kw=pub_kw * 1.3, lat=pub_lat),
    dict(axes, hbm_tb_s=6.4, workload="gptoss", feasible=False)])
grid = analysis.score_grid(grid)
check(list(grid["consistent"]) == [True, False, False], f"consistent {list(grid['consistent'])}")
check(close(grid["distance"][0], math.hypot(0.1, 0.1), 1e-9), "distance")
check(list(grid["joint"]) == [True, False, False], "joint")

# --- experiments: the grid's points and the pairs the ablations replay
oat = default
oat.grid_mode = "oat"
points = experiments.grid_points(oat)
nominal = {a[0]: a[3] for a in study.GRID_AXES}
check(points[0] == nominal, "oat starts at the nominal chip")
check(all(sum(p[n] != nominal[n] for n in nominal) == 1 for p in points[1:]),
      "oat: each point one axis off")
check(len(points) == 1 + sum(len([v for v in a[2] if v != a[3]]) for a in study.GRID_AXES)
      == 13, f"{len(points)} one-at-a-time points")
oat.grid_mode = "full"
points = experiments.grid_points(oat)
off = [sum(p[n] != nominal[n] for n in nominal) for p in points]
check(len(points) == math.prod(len(a[2]) for a in study.GRID_AXES) and off == sorted(off),
      "full grid: every combination, nearest first")
frame = pd.DataFrame({"mapping": ["tp1", "tp2", "tp4", "tp8"], "tp": [1, 2, 4, 8],
                      "ep": [1, 1, 1, 1], "attn_dp": [1, 1, 1, 1], "concurrency": [64, 8, 1, 1],
                      "tput_per_chip": [90.0, 40.0, 10.0, 5.0],
                      "median_e2e_intvty": [1.0, 2.0, 3.0, 9.0],
                      "intvty": [1.0, 2.0, 3.0, 4.0], "pareto": [1, 0, 1, 0]})
frame["tput_per_kw_tdp"] = frame["tput_per_chip"] / 0.7
pairs = experiments.frontier_pairs(frame, WORK)
check(pairs == {("--tp", "1"): {64}, ("--tp", "4"): {1}, ("--tp", "8"): {1}},
      f"frontier pairs {pairs}")

# --- figures: against interactivity the flag scoville wrote, against latency the rule
flagged = figures.panel_frontier(frame, "intvty", "tput_per_chip", True)
check(list(flagged.index) == [0, 2], f"flagged panel {list(flagged.index)}")
check(list(figures.panel_frontier(frame, "intvty", "tput_per_kw_tdp", True).index) == [0, 2],
      "per-kW panel: the flag")
lat = frame.assign(e2el_s=[4.0, 3.0, 2.0, 1.0])
check(list(figures.panel_frontier(lat, "e2el_s", "tput_per_chip", False).index)
      == [3, 2, 1, 0], "latency panel: every point trades latency for throughput")

if failures:
    print("FAILED:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("jalapeno package: all checks passed")
