#!/usr/bin/python3
"""`scoville run --trace` writes a valid Chrome Trace Event file: parses as JSON, every event has
the fields its phase needs, slices on one thread never overlap (so they nest trivially), counters
carry numeric series, and --trace-window / --trace-chips filter. usage: perfetto_trace_test.py SCOVILLE SOURCE_DIR WORKDIR
"""
import json
import os
import subprocess
import sys

SCOVILLE, WORK = sys.argv[1], sys.argv[3]
os.makedirs(WORK, exist_ok=True)
RUN = [SCOVILLE, "run", "--chip", "h200,jalapeno", "--batch", "2", "--isl", "512", "--osl", "64"]
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def trace(path, *extra):
    done = subprocess.run(RUN + ["--trace", path, *extra], capture_output=True, text=True)
    check(done.returncode == 0, f"run {' '.join(extra)} exited {done.returncode}: {done.stderr}")
    with open(path) as f:
        return json.load(f)


full = trace(os.path.join(WORK, "full.json"))
events = full["traceEvents"]
check(full.get("displayTimeUnit") == "ns", "displayTimeUnit must be ns")
slices = {}
for e in events:
    for key in ("ph", "pid", "name"):
        check(key in e, f"event without {key}: {e}")
    if e["ph"] == "X":
        check(e["dur"] >= 0 and e["ts"] >= 0, f"negative time: {e}")
        slices.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    elif e["ph"] == "C":
        check(all(isinstance(v, (int, float)) for v in e["args"].values()), f"counter: {e}")
    elif e["ph"] != "M":
        failures.append(f"unexpected phase {e['ph']}")

# Perfetto shows a thread's slices only if they nest; ours sit side by side, one level per
# thread. Allow a relative rounding slack of 1e-9 at the boundaries.
for (pid, tid), spans in slices.items():
    spans.sort()
    for (a0, a1), (b0, b1) in zip(spans, spans[1:]):
        check(b0 >= a1 - 1e-9 * max(1.0, a1), f"pid {pid} tid {tid}: {a0}-{a1} overlaps {b0}-{b1}")

processes = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
check(processes == {"chip h200", "chip jalapeno"}, f"processes: {processes}")
op_slices = [e for e in events if e["ph"] == "X" and e["tid"] == 3]
iteration_slices = [e for e in events if e["ph"] == "X" and e["tid"] == 1]
check(len(op_slices) > 100, f"only {len(op_slices)} op slices")
# Every op lies inside an iteration of its chip.
for op in op_slices:
    inside = any(it["pid"] == op["pid"] and it["ts"] - 1e-6 <= op["ts"] and
                 op["ts"] + op["dur"] <= it["ts"] + it["dur"] + 1e-6 for it in iteration_slices)
    if not inside:
        failures.append(f"op outside every iteration: {op['name']} at {op['ts']}")
        break

# --trace-chips keeps one process; --trace-window keeps only overlapping slices.
one = trace(os.path.join(WORK, "one.json"), "--trace-chips", "jalapeno")
check({e["pid"] for e in one["traceEvents"]} == {2}, "--trace-chips jalapeno kept other chips")
end_us = max(e["ts"] + e["dur"] for e in iteration_slices if e["pid"] == 1)
cut_us = end_us / 4
windowed = trace(os.path.join(WORK, "window.json"), "--trace-window", f"0 s:{cut_us} us")
kept = [e for e in windowed["traceEvents"] if e["ph"] == "X"]
check(0 < len(kept) < len([e for e in events if e["ph"] == "X"]), "window kept all or nothing")
check(all(e["ts"] < cut_us for e in kept), "window kept a slice starting after its end")

bad = subprocess.run(RUN + ["--trace", os.path.join(WORK, "x.json"), "--trace-chips", "tpu"],
                     capture_output=True, text=True)
check(bad.returncode == 2 and "--trace-chips" in bad.stderr, f"unknown chip: {bad.stderr}")
check(not os.path.exists(os.path.join(WORK, "x.json")), "failed run left a trace file")

for f in failures:
    print("FAIL:", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
