#!/usr/bin/python3
"""tools/jalapeno-study --quick: the report and its figures are written, the ratio table parses
(every workload row has numbers, the published ratios are the REFERENCE.md ones, the simulated
per-kW ratio equals peak tok/s per chip x TDP ratio as the detail table gives it), the
attribution and inverse tables are present, the raw-peaks table sits beside the calibrated one with
Jalapeño's transferred overlay written, every run is at the default (op-table) fidelity and says so
(the report, the transferred overlay, each output's `fidelity` attribute), the inverse grid varies
SRAM, a rerun reads its runs back instead of running and writes the same figure bytes, and the
figures pass tools/check-figures.
usage: jalapeno_study_test.py SCOVILLE SOURCE_DIR WORKDIR
"""
import glob
import os
import re
import shutil
import subprocess
import sys

SCOVILLE, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


doc = os.path.join(WORK, "jalapeno-study.md")
figures = os.path.join(WORK, "figures")
# One published low-concurrency point (the form of ../shared/validation/measurements.csv) for
# the GPU check; the test does not depend on the shared folder.
measurements = os.path.join(WORK, "measurements.csv")
os.makedirs(WORK, exist_ok=True)
with open(measurements, "w") as f:
    f.write("id,system,model,framework,isl,osl,concurrency,interactivity_tok_s_user\n"
            "66,NVIDIA GB200 NVL72,DeepSeek-R1-0528,\"Dynamo+TRT-LLM, MTP on\",1024,1024,4,286.4\n"
            "1,NVIDIA B200 (HGX 8-GPU),gpt-oss-120b,TensorRT-LLM,8192,1024,256,27.2\n")
cmd = [sys.executable, os.path.join(SOURCE, "tools", "jalapeno-study"), "--quick",
       "--scoville", SCOVILLE, "--doc", doc, "--figures", figures,
       "--work", os.path.join(WORK, "runs"), "--measurements", measurements]
first = subprocess.run(cmd, capture_output=True, text=True)
check(first.returncode == 0, f"exit {first.returncode}: {first.stderr[-2000:]}")
if first.returncode == 0:
    text = open(doc).read()
    for name in ("jalapeno-gptoss-pareto", "jalapeno-attribution", "jalapeno-inverse"):
        for ext in (".png", ".svg"):
            path = os.path.join(figures, name + ext)
            check(os.path.exists(path) and os.path.getsize(path) > 1000, f"figure {path}")
        check(f"figures/{name}.svg" in text, f"{name} not referenced in the report")
    # The ratio table: | workload | GPU | pub kW | sim kW | pub lat | sim lat | iso | T* | chip |
    rows = [line for line in text.split("\n") if line.startswith("| GPT-OSS 120B | GB200")]
    check(len(rows) == 1, f"ratio table rows: {rows}")
    if rows:
        cells = [c.strip() for c in rows[0].strip("|").split("|")]
        check(len(cells) == 9, f"ratio row has {len(cells)} cells: {cells}")
        nums = [float(c) for c in cells[2:6]]
        check(nums[0] == 1.9 and nums[2] == 1.7, f"published ratios {nums[0]}, {nums[2]}")
        check(nums[1] > 0 and nums[3] > 0, f"simulated ratios {nums[1]}, {nums[3]}")
        # per kW ratio = (peak tok/s/chip ratio) x (GPU TDP / Jalapeño TDP) = chip x 1200 / 700
        chip = float(cells[8])
        check(abs(nums[1] - chip * 1200 / 700) <= 0.011 + 0.006 * nums[1],
              f"per-kW ratio {nums[1]} vs per-chip {chip} x 12/7")
        detail = {m.group(1): float(m.group(2)) for m in re.finditer(
            r"^\| gptoss \| ([\w-]+) \| ([0-9]+) \|", text, re.M)}
        check(set(detail) == {"jalapeno-128", "gb200-nvl72"}, f"detail rows {detail}")
        if len(detail) == 2:
            check(abs(detail["jalapeno-128"] / detail["gb200-nvl72"] - chip) <= 0.006 + 1e-3 * chip,
                  f"per-chip ratio {chip} vs detail {detail}")
    # The raw-peaks table beside it: published ratios again, raw ones, calibrated / raw.
    raw = [line for line in text.split("\n") if line.startswith("| raw peaks | GPT-OSS 120B |")]
    check(len(raw) == 1, f"raw-peaks rows: {raw}")
    if raw and rows:
        cells = [c.strip() for c in raw[0].strip("|").split("|")]
        check(len(cells) == 10, f"raw row has {len(cells)} cells: {cells}")
        kw_raw, move = float(cells[3]), float(cells[4])
        cal_kw = float([c.strip() for c in rows[0].strip("|").split("|")][3])
        check(kw_raw > 0 and abs(cal_kw / kw_raw - move) <= 0.006 + 0.01 * move,
              f"calibrated / raw {move} vs {cal_kw} / {kw_raw}")
    # The fidelity: the default (op-table) on every run, stated in the report, recorded in every
    # output (its root attribute), and the transferred overlay fitted at it.
    check("**op-table fidelity** (`--fidelity op-table` on every run;" in text and
          "the outputs record op-table)" in text, "fidelity not stated in the report")
    check("roofline fidelity" not in text.replace("At the roofline fidelity neither", ""),
          "the report still says roofline fidelity")
    sys.path.insert(0, os.path.join(SOURCE, "tools"))
    from scoville.io import ResultFile
    outputs = glob.glob(os.path.join(WORK, "runs", "runs", "*.h5"))
    check(len(outputs) > 10, f"{len(outputs)} outputs")
    for path in outputs:
        with ResultFile(path) as f:
            attrs = f.provenance
        check(attrs.get("fidelity") == "op-table" and "--fidelity op-table" in
              attrs.get("command_line", ""), f"{path}: fidelity {attrs.get('fidelity')}")
    # Jalapeño's transferred overlay is applied (and named) on the calibrated runs when the
    # source overlay exists at op-table; without it every side runs uncalibrated, and says so.
    source = os.path.join(SOURCE, "arch", "systems", "gb200-nvl72.op-table.calibration.yaml")
    overlay = os.path.join(WORK, "runs", "variants", "jalapeno-transferred.calibration.yaml")
    check(os.path.exists(overlay), "no transferred overlay written")
    if os.path.exists(overlay):
        text_overlay = open(overlay).read()
        check("fidelity: op-table" in text_overlay and
              "per_iteration_overhead: 0 s" in text_overlay and
              ("bandwidth_efficiency:" in text_overlay) == os.path.exists(source),
              "transferred overlay content")
    check("## Calibration: how the GPUs and Jalapeño are compared" in text, "calibration section")
    if os.path.exists(source):
        check("jalapeno-transferred.calibration.yaml, `fidelity: op-table`" in text,
              "transferred overlay not described")
    else:
        check("**No calibration at the op-table fidelity**" in text and
              "`gb200-nvl72`: none (the chip model's op times)" in text,
              "the missing op-table calibration is not stated")
    knobs = set(re.findall(r"^\| gptoss \| (kv|network|software|mtp|power|rest) \|", text, re.M))
    check(knobs == {"kv", "network", "software", "mtp", "power", "rest"}, f"knobs {knobs}")
    check("## The inverse question" in text and "| link_ns (ns) |" in text, "inverse section")
    # The on-chip axes: SRAM with two values (each a row of the sensitivity table, with numbers),
    # tiles at its nominal value.
    check("| sram_mib (MiB) | 256, 512 | 256 |" in text and "| tiles (per die) | 64 | 64 |" in text,
          "SRAM / tiles axes not in the grid table")
    for v in (256, 512):
        check(re.search(rf"^\| sram_mib \| {v} MiB \| [0-9.]+ / [0-9.]+ \|$", text, re.M),
              f"no sensitivity row for sram_mib {v}")
    check("`sram_mib` and `tiles` move the results at the op-table fidelity" in text,
          "the SRAM sentence is not the op-table one")
    check(re.search(r"Scoville commit [0-9a-f]{7,}", text) is not None, "commit stated")
    check("Limitations" in text, "limitations stated")
    # The sweep check: both baselines' peak and best-latency points rerun with more requests,
    # and the headline ratios recomputed from them (the shortened ones equal the headline's).
    check("## What the shortened sweep changes" in text, "sweep check section")
    reruns = dict(re.findall(r"^\| gptoss \| ([\w-]+) \| [0-9]+ at N = [0-9]+ \| [0-9]+ "
                             r"\(([+-][0-9.]+)%\) \|", text, re.M))
    check(set(reruns) == {"jalapeno-128", "gb200-nvl72"}, f"sweep check rows {reruns}")
    recomputed = re.findall(r"^\| gptoss \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \| "
                            r"([0-9.]+) \|$", text, re.M)
    check(len(recomputed) == 1, f"sweep check ratio rows {recomputed}")
    if recomputed and rows:
        head = [c.strip() for c in rows[0].strip("|").split("|")]
        check(recomputed[0][0] == head[3] and recomputed[0][2] == head[5],
              f"shortened ratios {recomputed[0]} vs headline {head[3]}, {head[5]}")
    # The overhead sweep: at 0 ms the headline's ratios; a per-iteration overhead on Jalapeño
    # can only lower its best-latency ratio.
    over = re.findall(r"^\| gptoss \| ([0-9.]+) / ([0-9.]+) \| ([0-9.]+) / ([0-9.]+) \| 1.9 / 1.7 "
                      r"\|", text, re.M)
    check("## How much software overhead" in text and len(over) == 1, f"overhead rows {over}")
    if over and rows:
        head = [c.strip() for c in rows[0].strip("|").split("|")]
        check(over[0][0] == head[3] and over[0][1] == head[5],
              f"overhead sweep at 0 ms {over[0]} vs headline {head[3]}, {head[5]}")
        check(float(over[0][3]) < float(over[0][1]), f"1 ms did not lower latency: {over[0]}")
    # The low-concurrency GPU check: the GB200 DeepSeek row only (the B200 one is not a
    # low-concurrency GB200 point), the searched layout's and the TEP8 worker's errors each
    # consistent with their interactivities.
    low = re.findall(r"^\| 66 \| 4 \| 286.4 \| ([0-9.]+) \| [\w:+-]+ \| ([+-][0-9.]+)% \| "
                     r"([0-9.]+) \| ([+-][0-9.]+)% \|$", text, re.M)
    check("## The GPU side at low concurrency" in text and len(low) == 1, f"low-N rows {low}")
    check(not re.search(r"^\| 1 \| 256 \|", text, re.M), "a non-matching row was checked")
    if low:
        # Both figures are printed to 0.1: the error recomputed from the rounded figure can be
        # off by 0.05 (its own rounding) + 0.05 / 286.4 x 100 (the figure's), about 0.068.
        for sim, err in ((low[0][0], low[0][1]), (low[0][2], low[0][3])):
            check(abs((float(sim) / 286.4 - 1) * 100 - float(err)) < 0.07,
                  f"low-N error {err} vs {sim}")
    # A rerun with the same binary and inputs reads every run back.
    second = subprocess.run(cmd, capture_output=True, text=True)
    check(second.returncode == 0 and "(0 runs," in second.stdout,
          f"rerun: {second.returncode} {second.stdout.strip()}")
    again = open(doc).read()
    check(rows and rows[0] in again, "the rerun's ratio row differs from the first run's")
    # Same runs, same figure bytes (no date, fixed SVG ids); and every chart readable by
    # tools/check-figures' rules (axis titles with units, no exponent ticks, no overlaps).
    svgs = sorted(glob.glob(os.path.join(figures, "*.svg")))
    check(len(svgs) >= 3, f"figures: {svgs}")
    first_bytes = {p: open(p, "rb").read() for p in svgs}
    third = subprocess.run(cmd, capture_output=True, text=True)
    check(third.returncode == 0 and all(open(p, "rb").read() == b for p, b in first_bytes.items()),
          "a rerun from the same runs wrote different figure bytes")
    checked = subprocess.run([sys.executable, os.path.join(SOURCE, "tools", "check-figures"),
                              "--quiet", *svgs], capture_output=True, text=True)
    check(checked.returncode == 0, f"check-figures: {checked.stdout[-1500:]}{checked.stderr[-500:]}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("jalapeno-study quick report checked")
