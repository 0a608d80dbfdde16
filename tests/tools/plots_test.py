#!/usr/bin/python3
"""tools/plot and tools/scoville/plots.py: the Pareto chart's frontier (scoville's `pareto` flag on
InferenceX's axes of a /points table, scoville.frontier's rule elsewhere), the breakdown's phase times equal the run's phase times, the Pareto chart takes several sweep files
(a series and a frontier each) and any y column, the validation scatter's band shares on
hand-checked points and its input errors, and figures are written as PNG and SVG.
usage: plots_test.py SCOVILLE SOURCE_DIR WORKDIR
"""
import os
import subprocess
import sys

SCOVILLE, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.join(SOURCE, "tools"))
import h5py  # noqa: E402
import numpy as np  # noqa: E402

from scoville.io import ResultFile  # noqa: E402
import pandas as pd  # noqa: E402

from scoville.figures import readable_log_tick  # noqa: E402
from scoville.plots import frontier_of, validation_summary  # noqa: E402

os.makedirs(WORK, exist_ok=True)
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


# A log axis's ticks are plain numbers with an SI suffix from a thousand up, never 10^k.
for value, text in ((0.05, "0.05"), (0.5, "0.5"), (1.2, "1.2"), (2, "2"), (20, "20"),
                    (500, "500"), (1000, "1k"), (2000, "2k"), (50000, "50k"), (1.5e6, "1.5M"),
                    (0, ""), (-1, "")):
    check(readable_log_tick(value) == text, f"log tick {value}: {readable_log_tick(value)!r}")


# Frontier: (1,10) (2,8) (3,9) (4,2) (2,1): (2,8) is dominated by (3,9), (2,1) by all but (4,2)
# on y, and by (3,9) on both. Kept, by x: (1,10), (3,9), (4,2).
xs, ys = [1, 2, 3, 4, 2], [10, 8, 9, 2, 1]
# A flag that differs from the rule (scoville's is the one the chart draws on its axes): rows 3, 1.
table = pd.DataFrame({"intvty": xs, "tput_per_chip": ys, "tput_per_kw_tdp": ys,
                      "pareto": [0, 1, 0, 1, 0]})
check(frontier_of(table, "intvty", "tput_per_chip") == [1, 3],
      f"flagged frontier {frontier_of(table, 'intvty', 'tput_per_chip')}")
check(frontier_of(table, "intvty", "tput_per_chip", flagged=False) == [0, 2, 3],
      "a table whose flags do not hold is recomputed")
check(frontier_of(table, "intvty", "tput_per_kw_tdp") == [0, 2, 3], "other axes are recomputed")
check(frontier_of(table.drop(columns="pareto"), "intvty", "tput_per_chip") == [0, 2, 3],
      "a table without the flag is recomputed")

run_path = os.path.join(WORK, "run.h5")
subprocess.run([SCOVILLE, "run", "--chip", "jalapeno", "--batch", "2", "--isl", "512", "--osl",
                "64", "-o", run_path], check=True, capture_output=True)
with ResultFile(run_path) as run:
    phases, ops, iterations = run.table("phases"), run.table("ops"), run.table("iterations")
    power = run.table("power")
weights = dict(zip(iterations["iteration"], iterations["weight"]))
phase_of = dict(zip(iterations["iteration"], iterations["phase"]))
# Power-gating wake-ups are added to a phase once, outside its ops (docs/power.md).
stall = dict(zip(power["phase"], power["gating_stall_s"]))
for _, row in phases.iterrows():
    total = sum(d * weights[i] for i, d in zip(ops["iteration"], ops["dur_s"])
                if phase_of[i] == row["phase"]) + stall[row["phase"]]
    check(abs(total - row["time_s"]) <= 1e-6 * row["time_s"],
          f"{row['phase']}: weighted op time {total} != phase time {row['time_s']}")

tool = os.path.join(SOURCE, "tools", "plot")
for ext, magic in ((".png", b"\x89PNG"), (".svg", b"<?xml")):
    out = os.path.join(WORK, "breakdown" + ext)
    done = subprocess.run([tool, "breakdown", run_path, "-o", out], capture_output=True, text=True)
    check(done.returncode == 0, f"breakdown{ext}: {done.stderr}")
    with open(out, "rb") as f:
        check(f.read(5).startswith(magic), f"breakdown{ext} is not a {ext} file")

# A points table as the serving sweep writes it (columns per docs/results-format.md).
sweep = os.path.join(WORK, "sweep.h5")
with h5py.File(sweep, "w") as f:
    f.attrs["schema"] = "scoville.results"
    f.attrs["schema_version"] = 1
    g = f.create_group("points")
    g.attrs["kind"] = "table"
    g.attrs["columns"] = ["concurrency", "intvty", "tput_per_chip"]
    g.attrs["nrows"] = 5
    for name, values, units in (("concurrency", [1, 2, 4, 8, 16], "1"),
                                ("intvty", xs, "1/s"), ("tput_per_chip", ys, "1/s")):
        g.create_dataset(name, data=np.array(values, dtype=float)).attrs["units"] = units
out = os.path.join(WORK, "pareto.svg")
done = subprocess.run([tool, "pareto", sweep, "-o", out], capture_output=True, text=True)
check(done.returncode == 0 and os.path.getsize(out) > 1000, f"pareto: {done.stderr}")
bad = subprocess.run([tool, "pareto", sweep, "-o", out, "--y", "nope"], capture_output=True,
                     text=True)
check(bad.returncode == 2 and "nope" in bad.stderr, f"missing column: {bad.stderr}")
# Several sweep files: one series and one frontier each; tput_per_kw_tdp as the y axis.
sweeps = []
for k, scale in enumerate((1.0, 0.5)):
    path = os.path.join(WORK, f"sweep{k}.h5")
    with h5py.File(path, "w") as f:
        f.attrs["schema"] = "scoville.results"
        f.attrs["schema_version"] = 1
        g = f.create_group("points")
        g.attrs["kind"] = "table"
        g.attrs["columns"] = ["tp", "intvty", "tput_per_chip", "tput_per_kw_tdp"]
        g.attrs["nrows"] = 5
        for name, values, units in (("tp", [1, 2, 4, 8, 8], "1"), ("intvty", xs, "1/s"),
                                    ("tput_per_chip", ys, "1/s"),
                                    ("tput_per_kw_tdp", [v * scale for v in ys], "1/(s*kW)")):
            g.create_dataset(name, data=np.array(values, dtype=float)).attrs["units"] = units
    sweeps.append(path)
out = os.path.join(WORK, "pareto2.svg")
done = subprocess.run([tool, "pareto", *sweeps, "-o", out, "--y", "tput_per_kw_tdp"],
                      capture_output=True, text=True)
check(done.returncode == 0, f"pareto of two files: {done.stderr}")
with open(out) as f:
    svg = f.read()
for k in range(2):
    check(f'id="pareto-series-{k}"' in svg and f'id="pareto-frontier-{k}"' in svg,
          f"series {k} or its frontier missing from the SVG")
check('id="pareto-series-2"' not in svg, "more series than files")
check("throughput per kW of TDP [tok/s/kW]" in svg, "y axis not titled with tok/s/kW")

# A scenario sweep's sweep.h5: its points' serving metrics are in /results, which pareto plots.
scenario_sweep = os.path.join(WORK, "scenario-sweep.yaml")
with open(scenario_sweep, "w") as f:
    f.write("sweep:\n  name: plots\n  scenario:\n    system: {chip: h200, chips: 1}\n"
            "    model: llama-3.1-8b\n    mapping: {default: {chips: 1, tp: 1}}\n"
            "    requests: {pattern: closed_loop, isl: 64, osl: 8, concurrency: 1, num_prompts: 8}\n"
            "  axes:\n    - {key: scenario.requests.concurrency, values: [1, 4]}\n")
sweep_dir = os.path.join(WORK, "scenario-sweep")
ran = subprocess.run([SCOVILLE, "sweep", scenario_sweep, "--quiet", "-o", sweep_dir],
                     capture_output=True, text=True)
check(ran.returncode == 0, f"scenario sweep: {ran.stdout}{ran.stderr}")
out = os.path.join(WORK, "pareto-scenario.svg")
done = subprocess.run([tool, "pareto", os.path.join(sweep_dir, "sweep.h5"), "-o", out],
                      capture_output=True, text=True)
check(done.returncode == 0 and 'id="pareto-series-0"' in open(out).read(),
      f"pareto of a scenario sweep: {done.stderr}")

# Validation: errors (p - m) / m of 0, +10 %, -20 %, +30 % (100 vs 130), -15 % exactly: within
# ±15 %: 3 of 5 (0, 0.10, -0.15), within ±25 %: 4 of 5.
predicted = [100.0, 110.0, 80.0, 130.0, 85.0]
measured = [100.0, 100.0, 100.0, 100.0, 100.0]
errors, within = validation_summary(predicted, measured)
check([round(e, 9) for e in errors] == [0.0, 0.1, -0.2, 0.3, -0.15], f"errors {errors}")
check(within == {0.15: 3 / 5, 0.25: 4 / 5}, f"band shares {within}")
table = os.path.join(WORK, "validation.csv")
with open(table, "w") as f:
    f.write("predicted,measured,label\n")
    for p, m, k in zip(predicted, measured, range(5)):
        f.write(f"{p},{m},row {k}\n")
for ext, magic in ((".png", b"\x89PNG"), (".svg", b"<?xml")):
    out = os.path.join(WORK, "validation" + ext)
    done = subprocess.run([tool, "validation", table, "-o", out], capture_output=True, text=True)
    check(done.returncode == 0, f"validation{ext}: {done.stderr}")
    check("60% of points within ±15%" in done.stdout and "80% of points within ±25%"
          in done.stdout, f"validation summary: {done.stdout}")
    with open(out, "rb") as f:
        content = f.read()
    check(content.startswith(magic), f"validation{ext} is not a {ext} file")
    if ext == ".svg":
        for gid in ("validation-identity", "validation-band-15", "validation-band-25",
                    "validation-points"):
            check(f'id="{gid}"'.encode() in content, f"validation.svg lacks {gid}")
        check(b"row 3" in content, "validation.svg lacks the point labels")
# Without a label column; values over several decades (log axes).
plain = os.path.join(WORK, "plain.csv")
with open(plain, "w") as f:
    f.write("measured,predicted\n1,1.1\n1000,900\n")
done = subprocess.run([tool, "validation", plain, "-o", os.path.join(WORK, "v2.png")],
                      capture_output=True, text=True)
check(done.returncode == 0, f"validation without labels: {done.stderr}")
for content, expected in (("predicted,label\n1,a\n", "measured"),
                          ("predicted,measured\n1,0\n", ":2:"),
                          ("predicted,measured\n1,x\n", ":2:")):
    with open(os.path.join(WORK, "bad.csv"), "w") as f:
        f.write(content)
    bad = subprocess.run([tool, "validation", os.path.join(WORK, "bad.csv"), "-o",
                          os.path.join(WORK, "bad.png")], capture_output=True, text=True)
    check(bad.returncode == 2 and expected in bad.stderr, f"bad CSV {content!r}: {bad.stderr}")

bad = subprocess.run([tool, "breakdown", run_path, "-o", os.path.join(WORK, "x.jpg")],
                     capture_output=True, text=True)
check(bad.returncode == 2, "unsupported extension accepted")
pdf = os.path.join(WORK, "breakdown.pdf")
done = subprocess.run([tool, "breakdown", run_path, "-o", pdf], capture_output=True, text=True)
check(done.returncode == 0 and open(pdf, "rb").read(5) == b"%PDF-", f"PDF output: {done.stderr}")

for f in failures:
    print("FAIL:", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
