#!/usr/bin/python3
"""`scoville run --system ... --trace` writes a valid Chrome Trace Event file: slices nest per
thread, arrows pair up with both ends in a chip's collective slice; the iterations lie end to end
and hold their critical paths; every collective on the path is replayed on the network (a link
thread per link used, utilisation at most 1, an arrow per transfer, the bytes of its schedule);
the report is identical with and without --trace; --trace-max-events bounds the arrows.
usage: system_trace_test.py SCOVILLE SOURCE_DIR WORKDIR
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_checks  # noqa: E402

SCOVILLE, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(WORK, exist_ok=True)
# Tiny: TP 2 of an 8-GPU HGX (two chips on the NVSwitch), a short prompt and two output tokens.
RUN = [SCOVILLE, "run", "--system", "h200-hgx8", "--model", "llama-3.1-8b", "--batch", "1",
       "--isl", "64", "--osl", "2", "--tp", "2", "--json"]
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


path = os.path.join(WORK, "system.json")
traced = subprocess.run(RUN + ["--trace", path], capture_output=True, text=True)
plain = subprocess.run(RUN, capture_output=True, text=True)
check(traced.returncode == 0 and plain.returncode == 0, f"run: {traced.stderr} {plain.stderr}")
check(traced.stdout == plain.stdout, "the report differs with --trace")
with open(path) as f:
    doc = json.load(f)
slices = trace_checks.validate(doc, "system", failures, strict_arrows=False)
events = doc["traceEvents"]
procs = {e["pid"]: e["args"]["name"] for e in events
         if e["ph"] == "M" and e["name"] == "process_name"}
check(set(procs.values()) == {"pool (h200-hgx8, 2 chips)", "chip 0", "chip 1", "switches"},
      f"processes {procs}")

# Iterations end to end: prefill and the decode samples; the report's phase times are their
# weighted sums. Each critical-path span lies inside its iteration.
report = json.loads(plain.stdout)
iterations = sorted(slices[(1, 1)], key=lambda e: e["ts"])
check([e["name"] for e in iterations][0] == "prefill" and len(iterations) >= 2,
      f"iterations {[e['name'] for e in iterations]}")
for a, b in zip(iterations, iterations[1:]):
    check(abs(a["ts"] + a["dur"] - b["ts"]) <= 1e-6 * b["ts"], "iterations not end to end")
path_spans = slices.get((1, 10), [])
network_spans = [e for e in path_spans if e["cat"] == "network"]
check(len(network_spans) > 0 and len(path_spans) > len(network_spans), "critical path content")
for e in path_spans:
    inside = any(it["ts"] - 1e-6 <= e["ts"] and e["ts"] + e["dur"] <= it["ts"] + it["dur"] + 1e-6
                 for it in iterations)
    if not inside:
        failures.append(f"critical-path span outside its iteration: {e}")
        break

# Every network span is replayed: both chips have a collective slice for it at the same time,
# each ring all-reduce of 2 chips moves 2 transfers per step, and links stay within capacity.
for pid in (2, 3):
    chip = sorted(slices.get((pid, 1), []), key=lambda e: e["ts"])
    check([(e["name"], e["ts"]) for e in chip] ==
          [(e["name"], e["ts"]) for e in sorted(network_spans, key=lambda e: e["ts"])],
          f"chip pid {pid}: collective slices differ from the critical path's network spans")
    check(all(abs(e["args"]["replay_scale"] - 1) < 1e-6 for e in chip),
          f"chip pid {pid}: the replay does not end with the timed collective")
starts = [e for e in events if e["ph"] == "s"]
check(len(starts) == doc["otherData"]["transfers_shown"] and len(starts) % 2 == 0 and
      len(starts) >= 2 * len(network_spans), f"{len(starts)} arrows")
link_slices = [e for (pid, tid), spans in slices.items() if pid != 1 and tid >= 10 for e in spans]
check(link_slices and all(e["args"]["utilisation"] <= 1 + 1e-6 for e in link_slices),
      "link slices missing or above capacity")
link_bytes = sum(e["args"]["bytes"] for e in link_slices)
sent = sum(float(e["name"].split()[1]) for e in starts)
# Every transfer crosses two links (chip to switch, switch to chip).
check(abs(link_bytes - 2 * sent) <= 1e-6 * link_bytes + len(starts),
      f"links carried {link_bytes} B, transfers {sent} B")

# The cap bounds the arrows (whole replays: at most one replay past it).
capped = os.path.join(WORK, "capped.json")
done = subprocess.run(RUN + ["--trace", capped, "--trace-max-events", "20"], capture_output=True,
                      text=True)
check(done.returncode == 0, f"capped: {done.stderr}")
if done.returncode == 0:
    with open(capped) as f:
        small = json.load(f)
    trace_checks.validate(small, "capped", failures, strict_arrows=False)
    arrows = len([e for e in small["traceEvents"] if e["ph"] == "s"])
    check(0 < arrows < len(starts) and small["otherData"]["network_spans_not_replayed"] > 0,
          f"capped: {arrows} arrows, {small['otherData']}")
# --trace-chips keeps the chips named by number, the links into and out of them, and the arrows
# between kept chips only (here none: every transfer of chip 0 goes to chip 1).
one = os.path.join(WORK, "chip0.json")
done = subprocess.run(RUN + ["--trace", one, "--trace-chips", "0"], capture_output=True, text=True)
check(done.returncode == 0, f"--trace-chips 0: {done.stderr}")
if done.returncode == 0:
    with open(one) as f:
        only = json.load(f)
    trace_checks.validate(only, "chip 0", failures, strict_arrows=False)
    names = {e["args"]["name"] for e in only["traceEvents"]
             if e["ph"] == "M" and e["name"] == "process_name"}
    check(names == {"pool (h200-hgx8, 2 chips)", "chip 0", "switches"}, f"chip 0: {names}")
    threads = [e["args"]["name"] for e in only["traceEvents"]
               if e["ph"] == "M" and e["name"] == "thread_name"]
    links = [t for t in threads if "(link" in t]
    check(links and not [t for t in links if "chip 1" in t], f"chip 0 links: {links}")
    check(not [e for e in only["traceEvents"] if e["ph"] == "s"], "chip 0: arrows to chip 1 kept")
for wrong in ("h200", "8", "-1"):  # the HGX has chips 0 to 7
    bad = subprocess.run(RUN + ["--trace", os.path.join(WORK, "x.json"), "--trace-chips", wrong],
                         capture_output=True, text=True)
    check(bad.returncode == 2 and "--trace-chips" in bad.stderr, f"--trace-chips {wrong}: {bad.stderr}")
bad = subprocess.run(RUN + ["--trace", os.path.join(WORK, "x.json"), "--trace-chips", "h200"],
                     capture_output=True, text=True)
check(bad.returncode == 2 and "--trace-chips" in bad.stderr, f"--trace-chips: {bad.stderr}")

for f in failures:
    print("FAIL:", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
