#!/usr/bin/python3
"""`scoville report` writes one self-contained HTML page that loads in headless Chromium without
script errors, with its charts present and hover data on every chart element.
usage: html_report_test.py SCOVILLE SOURCE_DIR WORKDIR
"""
import os
import re
import shutil
import subprocess
import sys

SCOVILLE, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(WORK, exist_ok=True)
import h5py  # noqa: E402
import numpy as np  # noqa: E402

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


run_path = os.path.join(WORK, "run.h5")
subprocess.run([SCOVILLE, "run", "--chip", "h200,jalapeno", "--batch", "2", "--isl", "512",
                "--osl", "64", "-o", run_path], check=True, capture_output=True)
sweep_path = os.path.join(WORK, "sweep.h5")
# A points table with the mapping columns a serving sweep writes, a text column among them.
POINTS = {"concurrency": [1, 4, 16, 64], "tp": [8, 4, 2, 1], "ep": [1, 2, 4, 8],
          "dp": [1, 2, 4, 8], "attn_dp": [0, 1, 0, 1], "precision": ["fp8", "fp8", "fp4", "fp4"],
          "intvty": [300.0, 250, 120, 40], "tput_per_chip": [900.0, 2500, 6000, 9000],
          "tput_per_kw_tdp": [1285.0, 3571, 8571, 12857]}
with h5py.File(sweep_path, "w") as f:
    f.attrs["schema"] = "scoville.results"
    f.attrs["schema_version"] = 1
    g = f.create_group("points")
    g.attrs["kind"] = "table"
    g.attrs["columns"] = list(POINTS)
    g.attrs["nrows"] = 4
    for name, values in POINTS.items():
        if isinstance(values[0], str):
            data = np.array(values, dtype=h5py.string_dtype("utf-8"))
            g.create_dataset(name, data=data).attrs["units"] = ""
        else:
            dtype = float if isinstance(values[0], float) else np.int64
            g.create_dataset(name, data=np.array(values, dtype=dtype)).attrs["units"] = "1"

page = os.path.join(WORK, "report.html")
done = subprocess.run([SCOVILLE, "report", run_path, sweep_path, "-o", page], capture_output=True,
                      text=True)
check(done.returncode == 0, f"report exited {done.returncode}: {done.stderr}")
with open(page, encoding="utf-8") as f:
    text = f.read()
# Self-contained: nothing is fetched from elsewhere.
check(not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text), "page references the network")
check(len(re.findall(r'class="point ', text)) == 4, "Pareto chart should have 4 points")
# Every point's hover text names every column of its row.
tips = re.findall(r'class="point [^"]*" data-tip="([^"]*)"', text)
check(len(tips) == 4, f"{len(tips)} points with hover text")
for tip in tips:
    lines = tip.split("&#10;")
    row = [r for r in range(4) if f"concurrency = {POINTS['concurrency'][r]}" in lines]
    check(len(row) == 1, f"hover text names no row: {tip}")
    if len(row) == 1:
        for name, values in POINTS.items():
            value = values[row[0]]
            shown = [ln for ln in lines if ln.startswith(name + " = ")]
            check(len(shown) == 1 and float(shown[0].split(" = ")[1]) == value
                  if not isinstance(value, str) else shown == [f"{name} = {value}"],
                  f"hover of row {row[0]} shows {shown} for {name}, expected {value}")

# A scenario sweep's sweep.h5: the Pareto chart comes from /results (its points' metrics).
scenario_sweep = os.path.join(WORK, "scenario-sweep.yaml")
with open(scenario_sweep, "w") as f:
    f.write("sweep:\n  name: report\n  scenario:\n    system: {chip: h200, chips: 1}\n"
            "    model: llama-3.1-8b\n    mapping: {default: {chips: 1, tp: 1}}\n"
            "    requests: {pattern: closed_loop, isl: 64, osl: 8, concurrency: 1, num_prompts: 8}\n"
            "  axes:\n    - {key: scenario.requests.concurrency, values: [1, 4]}\n")
sweep_dir = os.path.join(WORK, "scenario-sweep")
ran = subprocess.run([SCOVILLE, "sweep", scenario_sweep, "--quiet", "-o", sweep_dir],
                     capture_output=True, text=True)
check(ran.returncode == 0, f"scenario sweep: {ran.stdout}{ran.stderr}")
scenario_page = os.path.join(WORK, "scenario-report.html")
done = subprocess.run([SCOVILLE, "report", os.path.join(sweep_dir, "sweep.h5"), "-o",
                       scenario_page], capture_output=True, text=True)
check(done.returncode == 0, f"report of a scenario sweep: {done.stderr}")
with open(scenario_page, encoding="utf-8") as f:
    pareto = re.search(r'<svg[^>]*id="pareto".*?</svg>', f.read(), re.DOTALL)
    check(pareto is not None and len(re.findall(r'class="point ', pareto.group(0))) == 2,
          "scenario sweep: Pareto chart of 2 points")

browser = shutil.which("chromium") or shutil.which("chromium-browser")
check(browser is not None, "chromium is not installed (tools/setup installs it)")
if browser:
    loaded = subprocess.run([browser, "--headless=new", "--no-sandbox", "--disable-gpu",
                             "--enable-logging=stderr", "--v=0", "--dump-dom",
                             "file://" + os.path.abspath(page)],
                            capture_output=True, text=True, timeout=120)
    body = re.search(r"<body[^>]*>", loaded.stdout)
    check(body is not None, f"no DOM dumped: {loaded.stderr[-2000:]}")
    if body:
        tag = body.group(0)
        check('data-ready="1"' in tag, f"the page script did not finish: {tag}")
        check("data-js-errors" not in tag, f"script errors: {tag}")
        charts = re.search(r'data-charts="(\d+)"', tag)
        # Pareto + (time by bound, energy by component) for the run file, + the power timeline
        # (power per window, clock) of each of its two power-managed chips (h200, jalapeno).
        check(charts is not None and int(charts.group(1)) == 7, f"charts: {tag}")
    console = [line for line in loaded.stderr.splitlines() if "CONSOLE" in line]
    check(not console, f"console messages: {console}")

    # Hover in the browser: a copy of the page moves the mouse onto the first point after the
    # report's script ran, and records the tooltip's text and visibility on <body>.
    probe = os.path.join(WORK, "hover.html")
    with open(probe, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", """<script>
var p=document.querySelector('.point'),t=document.getElementById('tip');
p.dispatchEvent(new MouseEvent('mousemove',{clientX:10,clientY:10,bubbles:true}));
document.body.setAttribute('data-hover-shown',t.style.display);
document.body.setAttribute('data-hover',t.textContent.split('\\n').join('|'));
</script></body>"""))
    hovered = subprocess.run([browser, "--headless=new", "--no-sandbox", "--disable-gpu",
                              "--dump-dom", "file://" + os.path.abspath(probe)],
                             capture_output=True, text=True, timeout=120)
    body = re.search(r"<body[^>]*>", hovered.stdout)
    tag = body.group(0) if body else ""
    check('data-hover-shown="block"' in tag, f"tooltip not shown on hover: {tag}")
    hover = re.search(r'data-hover="([^"]*)"', tag)
    shown = hover.group(1).split("|") if hover else []
    for name in POINTS:
        check(any(line.startswith(name + " = ") for line in shown),
              f"tooltip lacks column {name}: {shown}")

bad = subprocess.run([SCOVILLE, "report", os.path.join(WORK, "missing.h5"), "-o",
                      os.path.join(WORK, "x.html")], capture_output=True, text=True)
check(bad.returncode == 2 and "missing.h5" in bad.stderr, f"missing input: {bad.stderr}")
check(not os.path.exists(os.path.join(WORK, "x.html")), "a failed report left a page")

for f in failures:
    print("FAIL:", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
