#!/usr/bin/python3
"""Fits the mean prompt length of an ML.ENERGY task that the leaderboard does not publish, on
the rows that are not validated on (workloads/measurements/energy/ml-energy-v3-fit.csv,
max_num_seqs 16, 32 and 128; docs/validation.md "Energy", "Prompt length").

usage: tools/energy-validation/fit_prompt_length.py [--scoville BIN] [--fit CSV]
           [--task lm-arena-chat] [--grid 128:1536:64]

Why a fit: the leaderboard publishes each configuration's mean output length but not its
prompts' length, and for lm-arena-chat that length is a property of how the benchmark builds
its requests, not of one message: one request per conversation turn, whose prompt concatenates
every earlier user prompt and model response of the conversation (ml-energy/benchmark,
LMArenaHumanPreferenceDataset.sample). It moves time and energy at high batch through the
prefill each finished request brings (about batch / output length prompts per step) and the
context each decode step reads, so a wrong guess reads as a model error at batch 256.

How: for each prompt length L of the grid, the task's fit rows get isl = L and
`scoville validate --energy` predicts them; the objective is the mean |ln(predicted / measured
energy per output token)| over the task's rows (L1 in log space: the leaderboard's B200
small-model runs at 128-512 sequences idle the GPU for half their time, a host stall no
steady-state model predicts, and a least-squares fit would follow them). The L with the least
objective is printed with the whole scan; nothing under the repository is modified. The
validated rows (ml-energy-v3.csv) take the fitted value through extract_ml_energy.py.
Python 3 standard library only.
"""
import argparse
import csv
import json
import math
import os
import sys
import tempfile

from fit_active_power import ROOT, mape, scoville_output  # same folder: one way to run scoville


def parse_grid(text):
    try:
        lo, hi, step = (int(v) for v in text.split(":"))
    except ValueError:
        sys.exit("fit_prompt_length: --grid expects LO:HI:STEP in tokens, got '%s'" % text)
    if lo < 1 or hi < lo or step < 1:
        sys.exit("fit_prompt_length: --grid expects 1 <= LO <= HI and STEP >= 1, got '%s'" % text)
    return list(range(lo, hi + 1, step))


def read_rows(path):
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError as e:
        sys.exit("fit_prompt_length: cannot read %s: %s" % (path, e.strerror))


def predict(scoville, rows, task, isl):
    """{row id: (measured J/token, predicted J/token)} for the task's rows at prompt length isl."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "rows.csv")
        with open(path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
            writer.writeheader()
            for r in rows:
                if r["task"] == task:
                    writer.writerow(dict(r, isl=str(isl)))
        text = scoville_output([scoville, "validate", "--energy", path, "--json", "--quiet"])
    out = {}
    for r in json.loads(text)["rows"]:
        if "skipped" not in r:
            out[r["id"]] = (r["measured_j_per_token"], r["predicted_j_per_token"])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scoville", default=os.path.join(ROOT, "build/release/sim/scoville"))
    ap.add_argument("--fit", default=os.path.join(
        ROOT, "workloads/measurements/energy/ml-energy-v3-fit.csv"))
    ap.add_argument("--task", default="lm-arena-chat")
    ap.add_argument("--grid", default="128:1536:64")
    args = ap.parse_args()
    rows = read_rows(args.fit)
    if not any(r["task"] == args.task for r in rows):
        sys.exit("fit_prompt_length: %s has no row of task '%s'" % (args.fit, args.task))
    print("prompt tokens | rows | mean |ln error| | energy/token MAPE | worst")
    best = None
    for isl in parse_grid(args.grid):
        result = predict(args.scoville, rows, args.task, isl)
        errors = [math.log(p / m) for m, p in result.values()]
        objective = sum(abs(e) for e in errors) / len(errors)
        print("%13d | %4d | %16.4f | %16.1f %% | %5.1f %%" % (
            isl, len(errors), objective, mape(list(result.values())),
            max(100 * abs(math.exp(e) - 1) for e in errors)))
        sys.stdout.flush()
        if best is None or objective < best[1]:
            best = (isl, objective)
    print("fitted mean prompt length of %s: %d tokens (objective %.4f)" % (args.task, best[0],
                                                                           best[1]))


if __name__ == "__main__":
    main()
