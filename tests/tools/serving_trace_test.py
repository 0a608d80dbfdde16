#!/usr/bin/python3
"""`scoville serve --trace` and `inferencex --trace` write valid Chrome Trace Event files: slices
nest on every thread, flow arrows pair up, counters are numeric; a process per pool whose
iterations add up to the tokens served, a thread per request whose TTFT slice equals the TTFT in
/requests of the HDF5 output and whose pieces tile its life from send to last token; an arrow per
disaggregated KV hand-over from the prefill pool to the decode pool; results are bit-identical
with and without the trace; --trace-window, --trace-max-events and --trace-point filter and bound.
usage: serving_trace_test.py SCOVILLE SOURCE_DIR WORKDIR
"""
import json
import os
import subprocess
import sys

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_checks  # noqa: E402

SCOVILLE, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(WORK, exist_ok=True)
PINNED = dict(os.environ, SOURCE_DATE_EPOCH="1700000000")
failures = []

# Tiny disaggregated study: few short requests, so that the test also runs fast under ASan. The
# rate is high enough that requests queue and the client holds some back (max_concurrency);
# preemption is covered by tests/sim/serving_observer_test.cpp (an H200 holds plenty of KV here).
REQUESTS = 24
SCENARIO = os.path.join(WORK, "disagg.yaml")
with open(SCENARIO, "w") as f:
    f.write(f"""scenario:
  name: tiny-disagg
  system:
    chip: h200
    chips: 2
  model: llama-3.1-8b
  mapping:
    prefill: {{chips: 1, tp: 1}}
    decode: {{chips: 1, tp: 1}}
  scheduler:
    max_num_seqs: 8
    max_num_batched_tokens: 512
  requests:
    pattern: poisson
    isl: 600
    osl: 24
    rate: 400
    num_prompts: {REQUESTS}
    max_concurrency: 12
  seed: 3
""")
SERVE = [SCOVILLE, "serve", "--scenario", SCENARIO]


def check(condition, message):
    if not condition:
        failures.append(message)


def run(args, env=None):
    done = subprocess.run(args, capture_output=True, text=True, env=env)
    check(done.returncode == 0, f"{' '.join(args[1:])} exited {done.returncode}: {done.stderr}")
    return done


def load(path):
    with open(path) as f:
        return json.load(f)


def validate(document, label):
    return trace_checks.validate(document, label, failures, strict_arrows=True)


def names(document, what):
    return {(e["pid"], e["tid"]): e["args"]["name"] for e in document["traceEvents"]
            if e["ph"] == "M" and e["name"] == what}


def requests_table(path):
    with h5py.File(path, "r") as f:
        g = f["requests"]
        return {k: g[k][()] for k in g.keys()}


# ---- serve, disaggregated: the full timeline ----
full_path, traced_h5, plain_h5 = (os.path.join(WORK, n) for n in ("full.json", "t.h5", "p.h5"))
run(SERVE + ["-o", traced_h5, "--trace", full_path], PINNED)
doc = load(full_path)
slices = validate(doc, "serve")
events = doc["traceEvents"]
procs = names(doc, "process_name")
check(sorted(procs.values()) == ["pool decode (decode, 1 chips)",
                                 "pool prefill (prefill, 1 chips)", "requests"],
      f"processes: {procs}")
pid_of = {(name.split(" ")[1] if name.startswith("pool ") else name): pid
          for (pid, _), name in procs.items()}
req = requests_table(traced_h5)
check(len(req["id"]) == REQUESTS, f"/requests has {len(req['id'])} rows")

# Pools: iterations are named by what they ran and add up to the tokens served; prefill computes
# every prompt (plus recomputation after preemptions), decode yields output - 1 tokens each.
iters = {p: [e for e in slices.get((pid_of[p], 1), [])] for p in ("prefill", "decode")}
check(all(e["name"] == "prefill" for e in iters["prefill"]), "prefill pool ran decode")
check(all(e["name"] == "decode" for e in iters["decode"]), "decode pool ran prefill")
prefilled = sum(e["args"]["prefill_tokens"] for e in iters["prefill"])
check(prefilled >= sum(req["input_tokens"]), f"prefill tokens {prefilled}")
if sum(req["preemptions"]) == 0:
    check(prefilled == sum(req["input_tokens"]), f"prefill tokens {prefilled} without preemption")
decoded = sum(e["args"]["decode_tokens"] for e in iters["decode"])
check(decoded >= sum(req["output_tokens"] - 1), f"decode tokens {decoded}")
for pool, spans in iters.items():
    check(spans and all(e["args"]["batch_sequences"] ==
                        e["args"]["prefill_sequences"] + e["args"]["decode_sequences"] and
                        e["args"]["kv_blocks_used"] >= 0 and e["args"]["power_W"] > 0
                        for e in spans), f"{pool}: iteration args")
counter_names = {(e["pid"], e["name"]) for e in events if e["ph"] == "C"}
for pool in ("prefill", "decode"):
    for c in ("batch sequences", "batch tokens", "KV blocks used", "running sequences",
              "waiting sequences", "power"):
        check((pid_of[pool], c) in counter_names, f"{pool}: no counter {c}")
check((pid_of["requests"], "requests in flight") in counter_names, "no in-flight counter")
in_flight = [e["args"]["requests"] for e in events
             if e["ph"] == "C" and e["name"] == "requests in flight"]
check(max(in_flight) <= 12 and in_flight[-1] == 0, f"in flight {max(in_flight)}, {in_flight[-1]}")

# KV hand-overs: one arrow per request (each has more than one output token), from a prefill
# iteration to a decode iteration.
starts = [e for e in events if e["ph"] == "s"]
finishes = [e for e in events if e["ph"] == "f"]
check(len(starts) == REQUESTS == doc["otherData"]["kv_transfers"], f"{len(starts)} arrows")
check(all(e["pid"] == pid_of["prefill"] for e in starts) and
      all(e["pid"] == pid_of["decode"] for e in finishes), "arrows not prefill -> decode")

# Requests: a thread each; TTFT slice = /requests ttft; the pieces under TTFT and TPOT tile the
# request from send to last token; a KV transfer piece per request.
rpid = pid_of["requests"]
threads = {tid: spans for (pid, tid), spans in slices.items() if pid == rpid}
check(len(threads) == REQUESTS, f"{len(threads)} request threads")
row_of = {int(i): k for k, i in enumerate(req["id"])}
for tid, spans in threads.items():
    top = [e for e in spans if e["name"].startswith("request ")]
    if len(top) != 1:
        failures.append(f"request thread {tid}: {len(top)} request slices")
        continue
    k = row_of[int(top[0]["args"]["id"])]
    ttft = [e for e in spans if e["name"] == "TTFT"]
    close = lambda a, b: abs(a - b) <= 1e-6 * max(1.0, abs(b))
    check(len(ttft) == 1 and close(ttft[0]["dur"], req["ttft_s"][k] * 1e6) and
          close(ttft[0]["ts"], req["sent_s"][k] * 1e6),
          f"request {top[0]['args']['id']}: TTFT slice {ttft} vs {req['ttft_s'][k]} s")
    check(close(top[0]["dur"], req["e2el_s"][k] * 1e6), f"request {tid}: e2el")
    pieces = sorted((e for e in spans if e["name"] in
                     ("queued", "prefill", "KV transfer", "decode", "preempted")),
                    key=lambda e: e["ts"])
    covered = sum(e["dur"] for e in pieces)
    check(close(covered, top[0]["dur"]), f"request {tid}: pieces cover {covered} of "
          f"{top[0]['dur']} us")
    check(all(close(a["ts"] + a["dur"], b["ts"]) for a, b in zip(pieces, pieces[1:])),
          f"request {tid}: pieces leave gaps")
    check(sum(e["name"] == "KV transfer" for e in pieces) == 1, f"request {tid}: KV transfers")
    check(sum(e["name"] == "preempted" for e in pieces) <= req["preemptions"][k],
          f"request {tid}: more preempted pieces than preemptions")

# The observer only watches: results are bit-identical without --trace (command line aside).
run(SERVE + ["-o", plain_h5], PINNED)


def contents(path):
    out = {}
    with h5py.File(path, "r") as f:
        out["/"] = {k: v for k, v in f.attrs.items() if k != "command_line"}
        f.visititems(lambda name, obj: out.__setitem__(name, (
            dict(obj.attrs), obj[()].tobytes() if isinstance(obj, h5py.Dataset) and
            obj.dtype.kind != "O" else (list(obj[()]) if isinstance(obj, h5py.Dataset) else None))))
    return out


plain, traced = contents(plain_h5), contents(traced_h5)
check(len(plain) > 10 and plain.keys() == traced.keys(), "objects differ with --trace")
for key in plain:
    check(repr(plain[key]) == repr(traced.get(key)), f"{key} differs with --trace")

# --trace-window keeps what overlaps it; --trace-max-events caps slices per thread, counter points
# and request threads, and says so.
end_us = max(e["ts"] + e["dur"] for e in iters["decode"])
cut = end_us / 3
capped_path = os.path.join(WORK, "capped.json")
run(SERVE + ["--trace", capped_path, "--trace-window", f"0 s:{cut} us", "--trace-max-events", "6"])
capped = load(capped_path)
capped_slices = validate(capped, "capped")
check(all(e["ts"] < cut for s in capped_slices.values() for e in s), "window kept a late slice")
per_key = {}
for e in capped["traceEvents"]:
    if e["ph"] in "XC":
        key = (e["pid"], e.get("tid", e["name"]))
        per_key[key] = per_key.get(key, 0) + 1
check(max(per_key.values()) == 6, f"cap 6: max per thread {max(per_key.values())}")
other = capped["otherData"]
check(other["events_dropped"] > 0 and other["requests_shown"] == 6 and
      other["requests_not_shown"] > 0, f"cap: {other}")
check(len({t for (p, t) in capped_slices if p == rpid}) <= 6, "cap on request threads")

# ---- inferencex: one point traced, co-located ----
IX = [SCOVILLE, "inferencex", "--system", "h200", "--chips", "1", "--model", "llama-3.1-8b",
      "--isl", "128", "--osl", "8", "--concurrency", "1,3", "--prompts-per-client", "2",
      "--quiet", "--json"]
ix_path = os.path.join(WORK, "ix.json")
run(IX + ["--trace", ix_path, "--trace-point", "3"])
ix = load(ix_path)
ix_slices = validate(ix, "inferencex")
ix_procs = sorted(names(ix, "process_name").values())
check(ix_procs == ["pool default (colocated, 1 chips)", "requests"], f"processes {ix_procs}")
check(ix["otherData"]["run"] == "inferencex tp1 at concurrency 3", f"run: {ix['otherData']}")
check(len({t for (p, t) in ix_slices if p == 2}) == 6, "inferencex: 3 clients x 2 requests")
check(not [e for e in ix["traceEvents"] if e["ph"] in "sf"], "co-located run has KV arrows")
mixed_or_decode = {e["name"] for e in ix_slices.get((1, 1), [])}
check(mixed_or_decode <= {"prefill", "decode", "mixed"} and "decode" in mixed_or_decode,
      f"iteration names {mixed_or_decode}")

for bad, why in ((["--trace-point", "2", "--trace", os.path.join(WORK, "x.json")], "--trace-point"),
                 (["--trace-point", "3"], "--trace-point"),
                 (["--trace-window", "0 s:1 ms"], "--trace-window")):
    done = subprocess.run(IX + bad, capture_output=True, text=True)
    check(done.returncode == 2 and why in done.stderr, f"{bad}: {done.returncode} {done.stderr}")
check(not os.path.exists(os.path.join(WORK, "x.json")), "a refused run left a trace file")

for f in failures:
    print("FAIL:", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
