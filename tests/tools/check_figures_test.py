#!/usr/bin/python3
"""tools/check-figures on the report pages of every result kind (chip run with a power
timeline, system run, serving sweep, study sweep, scenario sweep, plan, validation, ablation) and on
tools/plot's figures:
all pass; deliberately broken SVGs (overlapping text, an axis title without a unit, an exponent
tick, text drawn as paths) fail. With Chromium, the page of all kinds is rendered headless to PNG.
usage: check_figures_test.py SCOVILLE SOURCE_DIR WORKDIR
"""
import os
import shutil
import subprocess
import sys

SCOVILLE, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(WORK, exist_ok=True)
CHECK = [sys.executable, os.path.join(SOURCE, "tools", "check-figures")]
PLOT = [sys.executable, os.path.join(SOURCE, "tools", "plot")]
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def scoville(*args):
    done = subprocess.run([SCOVILLE, *args], capture_output=True, text=True)
    check(done.returncode == 0, f"scoville {' '.join(args)}: {done.stdout}{done.stderr}")


def path(name):
    return os.path.join(WORK, name)


scoville("run", "--chip", "h200,jalapeno", "--batch", "2", "--isl", "512", "--osl", "64", "-o",
         path("run.h5"))
scoville("run", "--system", "h200-hgx8", "--model", "llama-3.1-8b", "--batch", "2", "--isl",
         "128", "--osl", "4", "--tp", "4", "-o", path("system.h5"))
scoville("inferencex", "--fidelity", "roofline", "--system", "h200", "--chips", "1", "--model",
         "llama-3.1-8b", "--isl", "256", "--osl", "32", "--concurrency", "1,2,4,8,16", "--quiet",
         "-o", path("serving.h5"))
with open(path("study.yaml"), "w") as f:
    f.write("sweep:\n  name: figures\n  study:\n    name: figures\n    chips: [h200]\n"
            "    model: llama-3.1-8b\n    batch: 1\n    isl: 128\n    osl: 8\n    seed: 1\n"
            "  axes:\n    - {key: study.chips, values: [[h200], [jalapeno]]}\n"
            "    - {key: study.batch, values: [1, 4]}\n")
scoville("sweep", path("study.yaml"), "--quiet", "-o", path("study"))
with open(path("scenario.yaml"), "w") as f:
    f.write("sweep:\n  name: figures\n  scenario:\n    system: {chip: h200, chips: 1}\n"
            "    model: llama-3.1-8b\n    mapping: {default: {chips: 1, tp: 1}}\n"
            "    requests: {pattern: closed_loop, isl: 64, osl: 8, concurrency: 1, num_prompts: 8}\n"
            "  axes:\n    - {key: scenario.requests.concurrency, values: [1, 4]}\n")
scoville("sweep", path("scenario.yaml"), "--quiet", "-o", path("scenario"))
scoville("plan", "--system", "h200-hgx8", "--model", "llama-3.1-8b", "--isl", "256", "--osl", "32",
         "--concurrency", "4", "--max-batch", "4", "--ttft-p99", "10s", "--tpot-p99", "1s",
         "--fidelity", "roofline", "--quiet", "-o", path("plan.h5"))
# Validation: a few shipped rows of three systems (roofline fidelity: seconds, not minutes).
with open(os.path.join(SOURCE, "workloads", "measurements", "published", "measurements.csv")) as f:
    lines = f.read().splitlines(keepends=True)
with open(path("measurements.csv"), "w") as f:
    f.write(lines[0] + "".join(l for l in lines[1:] if l.split(",")[0] in ("1", "3", "4", "13")))
scoville("validate", "--measurements", path("measurements.csv"), "--fidelity", "roofline",
         "--quiet", "-o", path("validation.h5"))
scoville("ablate", "--system", "h200-hgx8", "--model", "llama-3.1-8b", "--tp", "8", "--batch",
         "2", "--isl", "128", "--osl", "4", "--vary", "software=tensorrt-llm,vllm", "--quiet",
         "-o", path("ablation.h5"))

pages = {"run": [path("run.h5")], "system": [path("system.h5")],
         "serving": [path("serving.h5")], "study-sweep": [path("study/sweep.h5")],
         "scenario-sweep": [path("scenario/sweep.h5")], "plan": [path("plan.h5")],
         "validation": [path("validation.h5")], "ablation": [path("ablation.h5")],
         "all": [path("run.h5"), path("system.h5"), path("serving.h5"), path("study/sweep.h5"),
                 path("validation.h5"), path("ablation.h5")]}
for kind, inputs in pages.items():
    scoville("report", *inputs, "-o", path(kind + ".html"))
    done = subprocess.run(CHECK + [path(kind + ".html")], capture_output=True, text=True)
    check(done.returncode == 0, f"report page of {kind}: {done.stdout}{done.stderr}")
    # Every kind gets charts, not only tables.
    check("chart(s)" in done.stdout and " 0 chart(s)" not in done.stdout,
          f"report page of {kind} has no charts: {done.stdout}")

# What the validation and ablation pages must show besides passing the check.
with open(path("validation.html")) as f:
    page = f.read()
for expected in ("predicted against measured throughput per chip", "predicted = measured",
                 "+15 %", "-15 %", "Mean absolute percentage error per system", "b200-hgx8",
                 "mi355x-8", "h200-hgx8", "predicted interactivity [tok/s/user]"):
    check(expected in page, f"validation page lacks '{expected}'")
with open(path("ablation.html")) as f:
    page = f.read()
for expected in ("Ablation: software", "tensorrt-llm (baseline)", "phase times per variant",
                 "time [ms]", "Change relative to the baseline"):
    check(expected in page, f"ablation page lacks '{expected}'")

with open(path("validation.csv"), "w") as f:
    f.write("predicted,measured,label\n100,100,a\n110,100,b\n80,100,c\n2000,2100,d\n")
# Values over several decades: the chart goes log-log, whose ticks must stay plain numbers.
with open(path("validation-log.csv"), "w") as f:
    f.write("predicted,measured,label\n12,10,a\n900,1000,b\n61000,50000,c\n")
for figure, args in (("breakdown", [path("run.h5")]), ("pareto", [path("serving.h5")]),
                     ("validation", [path("validation.csv"), "--quantity", "throughput",
                                     "--unit", "tok/s"]),
                     ("validation-log", [path("validation-log.csv"), "--quantity", "throughput",
                                         "--unit", "tok/s"])):
    out = path(f"plot-{figure}.svg")
    done = subprocess.run(PLOT + [figure.split("-")[0], *args, "-o", out], capture_output=True,
                          text=True)
    check(done.returncode == 0, f"tools/plot {figure}: {done.stderr}")
    done = subprocess.run(CHECK + [out], capture_output=True, text=True)
    check(done.returncode == 0, f"tools/plot {figure}: {done.stdout}{done.stderr}")

GOOD = """<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="300" height="200">
<text class="tick" x="40" y="150" font-size="11" text-anchor="end">2,000</text>
<text class="x-title" x="150" y="190" font-size="12" text-anchor="middle">time [ms]</text>
<text class="y-title" x="12" y="100" font-size="12" text-anchor="middle"
 transform="rotate(-90 12 100)">power [W]</text>
</svg>"""
BROKEN = {
    "overlap": GOOD.replace("</svg>", '<text x="36" y="152" font-size="11">4,000</text></svg>'),
    "unitless-title": GOOD.replace("time [ms]", "time"),
    "exponent-tick": GOOD.replace("2,000", "4.04e+04"),
    "no-y-title": GOOD.replace('class="y-title"', 'class="tick"'),
}
with open(path("good.svg"), "w") as f:
    f.write(GOOD)
done = subprocess.run(CHECK + [path("good.svg")], capture_output=True, text=True)
check(done.returncode == 0, f"a good SVG failed: {done.stdout}")
for name, svg in BROKEN.items():
    with open(path(name + ".svg"), "w") as f:
        f.write(svg)
    done = subprocess.run(CHECK + [path(name + ".svg")], capture_output=True, text=True)
    check(done.returncode == 1, f"broken SVG '{name}' passed: {done.stdout}")
# A matplotlib figure with its text drawn as paths (the default svg.fonttype) fails.
paths_svg = path("paths.svg")
subprocess.run([sys.executable, "-c", f"""
import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt
plt.rcParams['svg.fonttype'] = 'path'
f, a = plt.subplots(); a.plot([1, 2], [3, 4]); a.set_xlabel('x [s]'); a.set_ylabel('y [W]')
f.savefig({paths_svg!r})"""], check=True)
done = subprocess.run(CHECK + [paths_svg], capture_output=True, text=True)
check(done.returncode == 1 and "drawn as paths" in done.stdout, f"paths SVG: {done.stdout}")

browser = shutil.which("chromium") or shutil.which("chromium-browser")
if browser:
    for kind in ("all",):  # one page with every kind: each render takes seconds
        png = path(kind + ".png")
        subprocess.run([browser, "--headless=new", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", f"--screenshot={png}", "--window-size=1150,2400",
                        "file://" + os.path.abspath(path(kind + ".html"))],
                       capture_output=True, text=True, timeout=120)
        check(os.path.exists(png) and os.path.getsize(png) > 10000,
              f"chromium did not render {kind}.html")

for f in failures:
    print("FAIL:", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
