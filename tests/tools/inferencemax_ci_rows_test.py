#!/usr/bin/python3
"""tools/inferencemax-ci-rows on made-up CI artifacts: a DeepSeek R1 point at concurrency 4 is
written as a row of measurements.csv's columns after the GPT-OSS ones; a point whose medians imply
another GPU count than its TP by Little's law is left out and named on stderr; the newest run of a
configuration wins; --tpot-lines recovers the line TPOT = a + b x concurrency a sweep was made on.
usage: inferencemax_ci_rows_test.py SCOVILLE SOURCE_DIR WORKDIR
"""
import csv
import io
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tool_module  # noqa: E402

TOOL = os.path.join(sys.argv[2], "tools/inferencemax-ci-rows")
rows_tool = tool_module.load(sys.argv[2], "tools/inferencemax-ci-rows", "ci_rows")
check = tool_module.Checks()


def point(hw, conc, tpot_ms, tp=8, isl=1024, osl=1024, gpus=None, framework="sglang",
          precision="fp8", model="deepseek-ai/DeepSeek-R1-0528"):
    """A co-located point whose throughput per GPU is what `gpus` GPUs (default tp) give by
    Little's law on its medians, as validate reads a row."""
    ttft = 0.15
    e2e = ttft + (0.9 * osl - 1.0) * tpot_ms / 1e3
    tput = conc * 0.9 * (isl + osl) / e2e / (gpus or tp)
    return {"hw": hw, "conc": conc, "image": "lmsysorg/sglang:v0.5.6", "model": model,
            "framework": framework, "precision": precision, "spec_decoding": "none",
            "disagg": False, "isl": isl, "osl": osl, "tp": tp, "ep": 1,
            "dp_attention": "false", "tput_per_gpu": tput, "median_ttft": ttft,
            "median_tpot": tpot_ms / 1e3, "median_intvty": 1e3 / tpot_ms,
            "median_e2el": e2e}


workdir = sys.argv[3]
os.makedirs(workdir, exist_ok=True)
older = [point("h200", 4, 13.0)]
newer = [point("h200", 4, 12.0),
         # B200 at TP8 whose throughput is what 16 GPUs would give: left out.
         point("b200", 4, 8.0, gpus=16),
         point("b200", 4, 8.5, tp=4),
         # A sweep for --tpot-lines: TPOT = 25 ms + 0.4 ms per sequence.
         ] + [point("mi300x", c, 25.0 + 0.4 * c) for c in (4, 8, 16, 32, 64)]
for run, points in (("100", older), ("200", newer)):
    with open(os.path.join(workdir, run + ".json"), "w", encoding="utf-8") as f:
        json.dump(points, f)

out = subprocess.run([TOOL, workdir], capture_output=True, text=True)
check(out.returncode == 0, "the tool exits 0: " + out.stderr)
rows = list(csv.reader(io.StringIO(out.stdout)))
check(len(rows) == 3, "three rows (H200, B200 TP4, MI300X at 4), got %d" % len(rows))
check("left out: b200 sglang fp8 1024/1024 TP8 run 200" in out.stderr,
      "the self-inconsistent point is named: " + out.stderr)
by_system = {r[2]: r for r in rows}
h200 = by_system.get("NVIDIA H200 (8-GPU)")
check(h200 is not None and h200[12] == "83.3", "the newest H200 run (12 ms, 1/TPOT 83.3) wins")
# No GPT-OSS or GB200 point here, so the DeepSeek rows start at 1001, in (GPU, ...) order.
check([r[0] for r in rows] == ["1001", "1002", "1003"], "ids from 1001 in order")
check(h200 is not None and h200[0] == "1002" and h200[4] == "DeepSeek-R1-0528" and
      h200[5] == "FP8" and h200[6] == "SGLang" and h200[9] == "4",
      "id, model, precision, framework and concurrency as measurements.csv writes them")
check(h200 is not None and "TP8 EP1 on 8 GPU(s) as run" in h200[16], "the deployment in notes")
check("AMD MI300X (8-GPU)" in by_system, "the MI300X point at concurrency 4 is a row")

# The made-up sweep's line comes back.
lines = {k[0]: (a, b) for k, a, b, _ in rows_tool.tpot_lines(rows_tool.points(workdir))}
a, b = lines.get("mi300x", (0.0, 0.0))
check(abs(a - 25.0) < 1e-6 and abs(b - 0.4) < 1e-9, "TPOT = 25 ms + 0.4 ms x N, got %g + %g" %
      (a, b))
check("h200" not in lines, "a sweep of fewer than three concurrencies has no line")
table = subprocess.run([TOOL, workdir, "--tpot-lines"], capture_output=True, text=True)
check(table.returncode == 0 and "| mi300x | sglang | fp8 | 8/1 |" in table.stdout and
      "| 25.0 | 0.400 |" in table.stdout, "--tpot-lines prints the table: " + table.stdout)

check.finish("inferencemax_ci_rows")
