#!/usr/bin/python3
"""`scoville run --trace` writes a valid Chrome Trace Event file: parses as JSON, every event has
the fields its phase needs, slices on every thread nest (ours never overlap), flow events pair
up, counters carry numeric series; a thread per tile and per HBM channel or stack whose slices
lie in their op and add up to the HBM traffic; results are bit-identical with and without the
trace; --trace-window, --trace-chips and --trace-max-events filter and bound the file; `net
--trace` shows a collective's steps, links and one arrow per transfer.
usage: perfetto_trace_test.py SCOVILLE SOURCE_DIR WORKDIR
"""
import json
import os
import subprocess
import sys

import h5py
import numpy as np
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_checks  # noqa: E402

SCOVILLE, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
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


def validate(document, label):
    """Format checks every trace must pass (tests/tools/trace_checks.py); returns
    {(pid, tid): [slice events]}. `net --trace` may put an arrow's end on a slice's edge."""
    return trace_checks.validate(document, label, failures, strict_arrows=False)


# One run gives the full trace and the traced results file (compared below with a plain run).
h5_paths = [os.path.join(WORK, name) for name in ("plain.h5", "traced.h5")]
PINNED = dict(os.environ, SOURCE_DATE_EPOCH="1700000000")
done = subprocess.run(RUN + ["-o", h5_paths[1], "--trace", os.path.join(WORK, "full.json")],
                      capture_output=True, text=True, env=PINNED)
check(done.returncode == 0, f"traced run: {done.stderr}")
with open(os.path.join(WORK, "full.json")) as f:
    full = json.load(f)
events = full["traceEvents"]
slices = validate(full, "full")

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

# A thread per tile and per HBM channel (per stack past 32 channels), as the chip files say.
thread_names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
                if e["ph"] == "M" and e["name"] == "thread_name"}
for pid, chip in ((1, "h200"), (2, "jalapeno")):
    with open(os.path.join(SOURCE, "arch", "chips", chip + ".yaml")) as f:
        spec = yaml.safe_load(f)["chip"]
    tiles = spec["tiles"]["count"]
    stacks, per_stack = spec["hbm"]["stacks"], spec["hbm"]["channels_per_stack"]
    hbm_threads = stacks * per_stack if stacks * per_stack <= 32 else stacks
    names = [n for (p, _), n in thread_names.items() if p == pid]
    check(sum(n.startswith("tile ") for n in names) == tiles, f"{chip}: tile threads {names}")
    check(sum(n.startswith("HBM ") for n in names) == hbm_threads, f"{chip}: HBM threads")

    # Each tile's slice lies inside its op's slice and is named after it; HBM slices start in
    # their op; HBM bytes over all threads add up to the ops' HBM bytes.
    ops = sorted((e for e in events if e["ph"] == "X" and e["pid"] == pid and e["tid"] == 3),
                 key=lambda e: e["ts"])
    tile_slices = hbm_slices = 0
    hbm_bytes = 0.0
    for (p, tid), spans in slices.items():
        if p != pid or tid < 10:
            continue
        is_tile = thread_names[(p, tid)].startswith("tile ")
        for e in spans:
            op = ops[e["args"]["op_index"]]
            slack = 1e-6 * max(1.0, op["ts"] + op["dur"])
            if e["name"] != op["name"] or e["ts"] < op["ts"] - slack or (
                    is_tile and e["ts"] + e["dur"] > op["ts"] + op["dur"] + slack):
                failures.append(f"{chip}: {thread_names[(p, tid)]} slice {e} outside op {op}")
                break
            check(0 <= e["args"]["busy_share"] <= 1 + 1e-9, f"{chip}: busy share {e}")
            if is_tile:
                tile_slices += 1
            else:
                hbm_slices += 1
                hbm_bytes += e["args"]["bytes"]
    planned = sum(op["args"]["hbm_bytes"] for op in ops)
    check(tile_slices >= len(ops) and hbm_slices > 0, f"{chip}: {tile_slices} tile slices, "
          f"{hbm_slices} HBM slices for {len(ops)} ops")
    check(abs(hbm_bytes - planned) <= 1e-6 * planned + len(ops),
          f"{chip}: HBM threads moved {hbm_bytes} B, the ops {planned} B")

# Recording activity only observes: the results file is bit-identical with and without --trace
# (command line and creation time aside). A timeline runs the detailed path (each chip's whole
# program on its chip model), so the plain run is a --detailed one.
subprocess.run(RUN + ["--detailed", "-o", h5_paths[0]], check=True, capture_output=True,
               env=PINNED)


def contents(path):
    out = {}
    with h5py.File(path, "r") as f:
        out["/"] = {k: v for k, v in f.attrs.items() if k != "command_line"}
        f.visititems(lambda name, obj: out.__setitem__(name, (
            dict(obj.attrs), obj[()].tobytes() if isinstance(obj, h5py.Dataset) and
            obj.dtype.kind != "O" else (list(obj[()]) if isinstance(obj, h5py.Dataset) else None))))
    return out


plain, traced = (contents(p) for p in h5_paths)
check(len(plain) > 10, "results file has too few objects")
check(plain.keys() == traced.keys(), "objects differ with --trace")
for key in plain:
    same = repr(plain[key]) == repr(traced.get(key))
    check(same, f"{key} differs with --trace")

# --trace-window keeps only overlapping slices, --trace-chips only that chip's process, and
# --trace-max-events caps slices per thread and counter points, and says so (one run for all).
end_us = max(e["ts"] + e["dur"] for e in iteration_slices if e["pid"] == 1)
cut_us = end_us / 4
windowed = trace(os.path.join(WORK, "window.json"), "--trace-window", f"0 s:{cut_us} us",
                 "--trace-chips", "jalapeno", "--trace-max-events", "40")
validate(windowed, "window")
check({e["pid"] for e in windowed["traceEvents"]} == {2}, "--trace-chips jalapeno kept others")
kept = [e for e in windowed["traceEvents"] if e["ph"] == "X"]
check(0 < len(kept) < len([e for e in events if e["ph"] == "X" and e["pid"] == 2]),
      "window kept all or nothing")
check(all(e["ts"] < cut_us for e in kept), "window kept a slice starting after its end")
window_tiles = [e for e in kept if e["tid"] >= 10]
check(window_tiles and all(e["ts"] < cut_us for e in window_tiles), "window: tile slices")
per_thread = {}
for e in windowed["traceEvents"]:
    if e["ph"] in "XC":
        key = (e["pid"], e.get("tid", e["name"]))
        per_thread[key] = per_thread.get(key, 0) + 1
check(max(per_thread.values()) == 40, f"cap 40: max per thread {max(per_thread.values())}")
check(windowed["otherData"]["events_dropped"] > 0, "cap dropped nothing")
check(any("more not shown" in e["args"]["name"] for e in windowed["traceEvents"]
          if e["ph"] == "M" and e["name"] == "thread_name"), "capped threads are not marked")

# Big runs stay loadable: a long run traced through a 1 ms window stays small. Bound: every
# thread of the window holds at most its ops' slices; 2 MB is far above what 1 ms holds here
# and far below the unwindowed file (tens of MB).
long_run = [SCOVILLE, "run", "--chip", "h200", "--batch", "1", "--isl", "4096", "--osl", "64",
            "--trace", os.path.join(WORK, "long.json"), "--trace-window", "2 ms:3 ms"]
done = subprocess.run(long_run, capture_output=True, text=True)
check(done.returncode == 0, f"long run: {done.stderr}")
size = os.path.getsize(os.path.join(WORK, "long.json"))
with open(os.path.join(WORK, "long.json")) as f:
    long_doc = json.load(f)
validate(long_doc, "long")
check(any(e["ph"] == "X" and e["tid"] >= 10 for e in long_doc["traceEvents"]),
      "long run window has no tile slices")
check(size < 2_000_000, f"long run with a 1 ms window wrote {size} bytes")

bad = subprocess.run(RUN + ["--trace", os.path.join(WORK, "x.json"), "--trace-chips", "tpu"],
                     capture_output=True, text=True)
check(bad.returncode == 2 and "--trace-chips" in bad.stderr, f"unknown chip: {bad.stderr}")
check(not os.path.exists(os.path.join(WORK, "x.json")), "failed run left a trace file")

# `scoville net --trace`: a collective flow by flow: a process per chip (steps thread, link
# threads), switches' links in their own process, an arrow per transfer from sender to receiver.
NET = [SCOVILLE, "net", "--system", "gb200-nvl72", "--chips", "8", "--json"]
for collective, algorithm, steps, flows_per_step in (("all_reduce", "ring", 2 * 7, 8),
                                                      ("all_to_all", "direct", 1, 8 * 7)):
    path = os.path.join(WORK, f"net_{collective}.json")
    done = subprocess.run(NET + ["--collective", collective, "--algorithm", algorithm, "--bytes",
                                 "64MiB", "--trace", path], capture_output=True, text=True)
    check(done.returncode == 0, f"net {collective}: {done.stderr}")
    if done.returncode != 0:
        continue
    # The timeline replays the wire; the collective library's launch and handshakes (library_s,
    # docs/network.md) are reported apart.
    result = json.loads(done.stdout)["results"][0]
    time_us = (result["time_s"] - result["library_s"]) * 1e6
    with open(path) as f:
        doc = json.load(f)
    net_slices = validate(doc, f"net {collective}")
    evs = doc["traceEvents"]
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in evs
             if e["ph"] == "M" and e["name"] == "thread_name"}
    procs = {e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "process_name"}
    # The 8 ranks are chips 0-7 of the NVL72 (one switch tier): only they and the switches show.
    check(procs == {f"chip {c}" for c in range(8)} | {"switches"}, f"processes {procs}")
    step_slices = net_slices.get((1, 1), [])
    check(len(step_slices) == steps, f"{collective}: {len(step_slices)} steps, expected {steps}")
    if step_slices:
        end = max(e["ts"] + e["dur"] for e in step_slices)
        check(abs(end - time_us) <= 1e-6 * time_us, f"{collective}: ends {end} us, net {time_us}")
    starts = [e for e in evs if e["ph"] == "s"]
    check(len(starts) == steps * flows_per_step, f"{collective}: {len(starts)} arrows")
    check(all(1 <= e["pid"] <= 8 for e in starts), f"{collective}: arrow from a chip not ranked")
    link_slices = [e for (pid, tid), spans in net_slices.items() if tid >= 10 for e in spans]
    check(link_slices and all(e["args"]["utilisation"] <= 1 + 1e-6 for e in link_slices),
          f"{collective}: link slices missing or above capacity")
    check(any(n.startswith("switch ") for n in names.values()), "no switch link threads")

capped = os.path.join(WORK, "net_capped.json")
done = subprocess.run(NET + ["--collective", "all_to_all", "--bytes", "1MiB", "--trace", capped,
                             "--trace-max-events", "10"], capture_output=True, text=True)
check(done.returncode == 0, f"net capped: {done.stderr}")
if done.returncode == 0:
    with open(capped) as f:
        doc = json.load(f)
    validate(doc, "net capped")
    check(len([e for e in doc["traceEvents"] if e["ph"] == "s"]) == 10, "net cap on transfers")
    check(doc["otherData"]["flows_not_shown"] == 8 * 7 - 10, f"net cap: {doc['otherData']}")
bad = subprocess.run(NET + ["--collective", "all_reduce", "--bytes", "1MiB,2MiB", "--trace",
                            os.path.join(WORK, "y.json")], capture_output=True, text=True)
check(bad.returncode == 2 and "one --bytes" in bad.stderr, f"net --trace two sizes: {bad.stderr}")

for f in failures:
    print("FAIL:", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
