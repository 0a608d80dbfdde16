#!/usr/bin/python3
"""Scans a serving stack's per-op software time against the measured median inter-token latency
of the ML.ENERGY rows at one batch limit (docs/calibration.md, "Per-stack fit", the check of the
per-op range; docs/validation.md, "Median inter-token latency").

usage: tools/energy-validation/scan_stack_per_op.py [--scoville BIN] [--rows CSV] [--stack vllm]
           [--batch 8] [--per-op 0.5,1.5,2.5,3,3.5,4.5]

Why: a stack's per-op time (launch gaps and the tails of small kernels that the chip model does
not see) is fitted by `calibrate --per-stack` on throughput rows within a published range, and
for vLLM it sits at the range's ceiling (3 us). The ML.ENERGY rows measure the decode step
directly at low batch, where a step is a few hundred to a few thousand small kernels and the
per-op time is a large share of it, on rows no stack fit used: they test that ceiling.

How: for each total per-op time T, a copy of arch/software/<stack>.yaml with `per_op_launch: T`
and the stack's fitted per-iteration and per-sequence times folded in (its
<stack>.op-table.calibration.yaml, which a renamed copy would otherwise not find) predicts the
rows of --rows at max_num_seqs == --batch with `scoville validate --energy --software FILE`; the
table gives, per T, the mean ln(simulated / measured median ITL), its MAPE and each row's
signed error. Nothing under the repository is modified. Python 3 standard library only.
"""
import argparse
import csv
import json
import math
import os
import re
import sys
import tempfile

from fit_active_power import ROOT, scoville_output  # same folder: one way to run scoville

US = {"s": 1e6, "ms": 1e3, "us": 1.0}


def read_rows(path, batch):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        sys.exit("scan_stack_per_op: cannot read %s: %s" % (path, e.strerror))
    chosen = [r for r in rows if r.get("max_num_seqs") == str(batch) and r.get("median_itl_ms")]
    if not chosen:
        sys.exit("scan_stack_per_op: %s has no row at max_num_seqs %d with a median_itl_ms"
                 % (path, batch))
    return chosen


def knob_us(text, key):
    """A `key: VALUE UNIT` line of a YAML file as microseconds (0 when absent)."""
    m = re.search(r"^\s*%s:\s*([0-9.eE+-]+)\s*(s|ms|us)\b" % re.escape(key), text, re.M)
    return float(m.group(1)) * US[m.group(2)] if m else 0.0


def stack_file(stack, per_op_us, folder):
    """The stack's file with its fitted op-table knobs folded in and per_op_launch = per_op_us."""
    base = os.path.join(ROOT, "arch/software", stack + ".yaml")
    try:
        text = open(base).read()
    except OSError as e:
        sys.exit("scan_stack_per_op: cannot read %s: %s" % (base, e.strerror))
    fitted = os.path.join(ROOT, "arch/software", stack + ".op-table.calibration.yaml")
    knobs = open(fitted).read() if os.path.exists(fitted) else ""
    for key, knob in (("per_iteration", "per_iteration_overhead"),
                      ("per_sequence", "per_sequence_overhead")):
        total = knob_us(text, key) + knob_us(knobs, knob)
        text = re.sub(r"^(\s*%s:)\s*[^#\n]*" % key, r"\g<1> %.12g us  " % total, text, count=1,
                      flags=re.M)
    text = re.sub(r"^(\s*per_op_launch:)\s*[^#\n]*", r"\g<1> %.6g us  " % per_op_us, text,
                  count=1, flags=re.M)
    path = os.path.join(folder, "%s-scan.yaml" % stack)
    with open(path, "w") as f:
        f.write(text)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scoville", default=os.path.join(ROOT, "build/release/sim/scoville"))
    ap.add_argument("--rows", default=os.path.join(
        ROOT, "workloads/measurements/energy/ml-energy-v3.csv"))
    ap.add_argument("--stack", default="vllm")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--per-op", default="0.5,1.5,2.5,3,3.5,4.5",
                    help="total per-op times to try, us")
    args = ap.parse_args()
    try:
        per_ops = [float(v) for v in args.per_op.split(",")]
    except ValueError:
        per_ops = []
    if not per_ops or any(not (v >= 0) for v in per_ops):
        sys.exit("scan_stack_per_op: --per-op expects microseconds >= 0 separated by commas, "
                 "got '%s'" % args.per_op)
    rows = read_rows(args.rows, args.batch)
    print("per op (us) | rows | mean ln(sim / measured ITL) | ITL MAPE | per row")
    with tempfile.TemporaryDirectory() as tmp:
        subset = os.path.join(tmp, "rows.csv")
        with open(subset, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        for per_op in per_ops:
            software = stack_file(args.stack, per_op, tmp)
            text = scoville_output([args.scoville, "validate", "--energy", subset, "--software",
                                    software, "--json", "--quiet"])
            done = [r for r in json.loads(text)["rows"] if "skipped" not in r]
            logs = [math.log(r["predicted_median_itl_ms"] / r["measured_median_itl_ms"])
                    for r in done]
            print("%11g | %4d | %27.3f | %7.1f %% | %s" % (
                per_op, len(logs), sum(logs) / len(logs),
                100.0 * sum(abs(math.exp(x) - 1.0) for x in logs) / len(logs),
                " ".join("%s %+.0f%%" % (r["id"], 100.0 * (math.exp(x) - 1.0))
                         for r, x in zip(done, logs))))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
