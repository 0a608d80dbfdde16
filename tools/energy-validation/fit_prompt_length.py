#!/usr/bin/python3
"""Fits the mean prompt length of an ML.ENERGY task that the leaderboard does not publish, on
the rows that are not validated on (workloads/measurements/energy/ml-energy-v3-fit.csv,
max_num_seqs 16, 32 and 128; docs/validation.md "Energy", "Prompt length").

usage: tools/energy-validation/fit_prompt_length.py [--scoville BIN] [--fit CSV]
           [--task lm-arena-chat] [--grid 128:1536:64] [--hit-rates 0,0.2,0.4,0.5,0.6,0.7]

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

--hit-rates H,H,...: a scan, not a fit. Each grid length is also run with the rows'
prefix_hit_rate column at each H (the share of every prompt vLLM's prefix cache holds: a turn's
prompt starts with the previous turn's), and the table gives, per length and hit rate, the mean
|ln error| of energy per token, of output throughput and of the median inter-token latency (rows
without median_itl_ms left out of the last). On the shipped fit rows the first two run along a
ridge where length x (1 - hit rate) is about constant, and the third does not depend on the hit
rate but flattens above about 1,280 tokens (docs/validation.md, "Prefix caching"), which is why
no hit rate is fitted. Python 3 standard library only.
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


def predict(scoville, rows, task, isl, hit_rate=None):
    """The `validate --energy --json` rows of the task's rows at prompt length isl and, when
    given, that prefix_hit_rate (skipped rows left out)."""
    fields = list(rows[0].keys())
    if hit_rate is not None and "prefix_hit_rate" not in fields:
        fields.append("prefix_hit_rate")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "rows.csv")
        with open(path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
            writer.writeheader()
            for r in rows:
                if r["task"] == task:
                    row = dict(r, isl=str(isl))
                    if hit_rate is not None:
                        row["prefix_hit_rate"] = repr(hit_rate)
                    writer.writerow(row)
        text = scoville_output([scoville, "validate", "--energy", path, "--json", "--quiet"])
    return [r for r in json.loads(text)["rows"] if "skipped" not in r]


def pairs(predicted, metric):
    """[(measured, predicted)] of `metric` (j_per_token, output_tok_s or median_itl_ms) per row
    that has it (median_itl_ms is optional in the rows)."""
    return [(r["measured_" + metric], r["predicted_" + metric]) for r in predicted
            if r.get("measured_" + metric) and r.get("predicted_" + metric)]


def mean_abs_log_error(measured_predicted):
    errors = [math.log(p / m) for m, p in measured_predicted]
    return sum(abs(e) for e in errors) / len(errors)


def parse_hit_rates(text):
    try:
        rates = [float(v) for v in text.split(",")]
    except ValueError:
        rates = []
    if not rates or any(not 0.0 <= h < 1.0 for h in rates):
        sys.exit("fit_prompt_length: --hit-rates expects fractions in [0, 1) separated by commas, "
                 "got '%s'" % text)
    return rates


def scan_hit_rates(args, rows, rates):
    """The energy / throughput objectives over grid lengths x hit rates (no fit)."""
    print("prompt tokens \\ hit rate | " + " | ".join("%-13g" % h for h in rates))
    for isl in parse_grid(args.grid):
        cells = []
        for h in rates:
            predicted = predict(args.scoville, rows, args.task, isl, h)
            cells.append("%.4f / %.4f / %.4f" % (
                mean_abs_log_error(pairs(predicted, "j_per_token")),
                mean_abs_log_error(pairs(predicted, "output_tok_s")),
                mean_abs_log_error(pairs(predicted, "median_itl_ms"))))
        print("%24d | %s" % (isl, " | ".join(cells)))
        sys.stdout.flush()
    print("cells: mean |ln error| of energy per token / of output throughput / of median "
          "inter-token latency")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scoville", default=os.path.join(ROOT, "build/release/sim/scoville"))
    ap.add_argument("--fit", default=os.path.join(
        ROOT, "workloads/measurements/energy/ml-energy-v3-fit.csv"))
    ap.add_argument("--task", default="lm-arena-chat")
    ap.add_argument("--grid", default="128:1536:64")
    ap.add_argument("--hit-rates", help="scan these prefix hit rates beside the lengths (no fit)")
    args = ap.parse_args()
    rows = read_rows(args.fit)
    if not any(r["task"] == args.task for r in rows):
        sys.exit("fit_prompt_length: %s has no row of task '%s'" % (args.fit, args.task))
    if args.hit_rates is not None:
        scan_hit_rates(args, rows, parse_hit_rates(args.hit_rates))
        return
    print("prompt tokens | rows | mean |ln error| | energy/token MAPE | worst")
    best = None
    for isl in parse_grid(args.grid):
        energy = pairs(predict(args.scoville, rows, args.task, isl), "j_per_token")
        objective = mean_abs_log_error(energy)
        print("%13d | %4d | %16.4f | %16.1f %% | %5.1f %%" % (
            isl, len(energy), objective, mape(energy),
            max(100 * abs(p / m - 1) for m, p in energy)))
        sys.stdout.flush()
        if best is None or objective < best[1]:
            best = (isl, objective)
    print("fitted mean prompt length of %s: %d tokens (objective %.4f)" % (args.task, best[0],
                                                                           best[1]))


if __name__ == "__main__":
    main()
