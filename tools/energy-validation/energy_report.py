#!/usr/bin/python3
"""Predicts the measured energy rows and prints the MAPE table of docs/validation.md ("Energy").

usage: tools/energy-validation/energy_report.py [--rows CSV] [--binary PATH] [--json FILE]
                                                [--fidelity op-table|roofline]

Runs `scoville validate --energy CSV --json` (default workloads/measurements/energy/ml-energy-v3.csv at the
default op-table fidelity), or reads that JSON from --json, and prints one Markdown row per
measured point (measured and predicted energy per output token, average power and throughput,
signed errors) and the mean absolute percentage errors overall, per GPU and per batch class,
with the floor of issue 30 (energy per token MAPE <= 20 %, no row worse than 35 %, low and high
batch both covered). Exit status 0 whatever the errors (a report, not a gate).
Python 3 standard library only.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FLOOR_MAPE, FLOOR_WORST = 20.0, 35.0


def signed_error(predicted, measured):
    """Signed percentage error of a prediction."""
    return (predicted - measured) / measured * 100.0 if measured else 0.0


def batch_class(max_num_seqs):
    """low (<= 16 sequences), high (>= 128) or middle, as scoville validate --energy groups."""
    return "low" if max_num_seqs <= 16 else "high" if max_num_seqs >= 128 else "middle"


def summarize(rows):
    """MAPE of energy per token and power, worst energy row, per group of the predicted rows."""
    groups = {}
    for r in rows:
        if "skipped" in r:
            continue
        e = abs(signed_error(r["predicted_j_per_token"], r["measured_j_per_token"]))
        p = abs(signed_error(r["predicted_power_w"], r["measured_power_w"]))
        for key in ("all", "gpu " + r["gpu"], "batch " + batch_class(r["max_num_seqs"])):
            g = groups.setdefault(key, {"energy": 0.0, "power": 0.0, "worst": 0.0, "rows": 0})
            g["energy"] += e
            g["power"] += p
            g["worst"] = max(g["worst"], e)
            g["rows"] += 1
    for g in groups.values():
        g["energy"] /= g["rows"]
        g["power"] /= g["rows"]
    return groups


def floor_holds(groups):
    """Issue 30's energy floor: at least 20 rows, MAPE <= 20 %, worst <= 35 %, low and high
    batch both predicted."""
    a = groups.get("all")
    return bool(a and a["rows"] >= 20 and a["energy"] <= FLOOR_MAPE and a["worst"] <= FLOOR_WORST
                and "batch low" in groups and "batch high" in groups)


def table(rows):
    lines = ["| id | GPU | chips | model | batch | J/tok measured | J/tok predicted | error |"
             " W measured | W predicted | error | tok/s measured | tok/s predicted | error |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "skipped" in r:
            lines.append("| %s | %s | %d | %s | %d | skipped: %s |" % (
                r["id"], r["gpu"], r["chips"], r["model"], r["max_num_seqs"], r["skipped"]))
            continue
        lines.append("| %s | %s | %d | %s | %d | %.4f | %.4f | %+.1f%% | %.0f | %.0f | %+.1f%% |"
                     " %.0f | %.0f | %+.1f%% |" % (
                         r["id"], r["gpu"], r["chips"], r["model"], r["max_num_seqs"],
                         r["measured_j_per_token"], r["predicted_j_per_token"],
                         signed_error(r["predicted_j_per_token"], r["measured_j_per_token"]),
                         r["measured_power_w"], r["predicted_power_w"],
                         signed_error(r["predicted_power_w"], r["measured_power_w"]),
                         r["measured_output_tok_s"], r["predicted_output_tok_s"],
                         signed_error(r["predicted_output_tok_s"], r["measured_output_tok_s"])))
    return "\n".join(lines)


def summary_table(groups):
    lines = ["| group | rows | energy/token MAPE | worst energy row | power MAPE |",
             "|---|---|---|---|---|"]
    for key in sorted(groups, key=lambda k: (k != "all", k)):
        g = groups[key]
        lines.append("| %s | %d | %.1f%% | %.1f%% | %.1f%% |" % (
            key, g["rows"], g["energy"], g["worst"], g["power"]))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default=os.path.join(ROOT, "workloads/measurements/energy/ml-energy-v3.csv"))
    ap.add_argument("--binary", default=os.path.join(ROOT, "build/release/sim/scoville"))
    ap.add_argument("--fidelity", default="op-table")
    ap.add_argument("--json", help="read this `validate --energy --json` output instead of running")
    args = ap.parse_args()
    if args.json:
        with open(args.json) as f:
            result = json.load(f)
    else:
        cmd = [args.binary, "validate", "--energy", args.rows, "--fidelity", args.fidelity,
               "--json"]
        print("$ " + " ".join(cmd), file=sys.stderr)
        env = dict(os.environ, SCOVILLE_DATA_DIR=os.environ.get("SCOVILLE_DATA_DIR", ROOT))
        out = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env, check=True)
        result = json.loads(out.stdout)
    groups = summarize(result["rows"])
    print(table(result["rows"]))
    print()
    print(summary_table(groups))
    print()
    print("Floor (issue 30: >= 20 rows, energy/token MAPE <= %.0f %%, worst <= %.0f %%, low and "
          "high batch): %s" % (FLOOR_MAPE, FLOOR_WORST, "holds" if floor_holds(groups) else
                               "NOT met"))


if __name__ == "__main__":
    main()
