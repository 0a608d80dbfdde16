#!/usr/bin/python3
"""Predicted (scoville net) against published NCCL collective latencies.

Reads published.csv beside this script (or --data FILE), runs `scoville net --json` once per
(system, collective, ranks, algorithm, nccl_only) group over the group's sizes, and prints per
row the predicted and published time, the signed error and the algorithm/protocol the model
chose. Exits 1 when some row's error exceeds --max-error (default 0.30), so the comparison can
gate a change; exits 2 on a usage or run problem.

    tools/nccl-compare/nccl_compare.py [--scoville build/release/scoville] [--data FILE]
                                       [--max-error 0.30] [--csv]
"""
import argparse
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def read_rows(path):
    with open(path, newline="") as f:
        lines = [line for line in f if not line.startswith("#")]
    return list(csv.DictReader(lines))


def predict(scoville, system, collective, chips, algorithm, nccl_only, sizes):
    cmd = [scoville, "net", "--system", system, "--collective", collective,
           "--bytes", ",".join(f"{b}B" for b in sizes), "--chips", str(chips), "--json"]
    if algorithm:
        cmd += ["--algorithm", algorithm]
    if nccl_only:
        cmd.append("--nccl-only")
    run = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        sys.stderr.write(f"nccl_compare: {' '.join(cmd)} failed:\n{run.stdout}{run.stderr}")
        sys.exit(2)
    out = json.loads(run.stdout)
    return {int(round(r["bytes"])): r for r in out["results"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scoville", default=os.path.join(ROOT, "build", "release", "sim", "scoville"))
    parser.add_argument("--data", default=os.path.join(HERE, "published.csv"))
    parser.add_argument("--max-error", type=float, default=0.30)
    parser.add_argument("--csv", action="store_true", help="print CSV instead of a table")
    args = parser.parse_args()
    if not os.path.exists(args.scoville):
        sys.stderr.write(f"nccl_compare: no scoville binary at {args.scoville}\n")
        return 2
    rows = read_rows(args.data)
    groups = {}
    for row in rows:
        key = (row["system"], row["collective"], int(row["chips"]), row["algorithm"],
               row["nccl_only"] == "yes")
        groups.setdefault(key, []).append(row)
    results = []
    for key, members in groups.items():
        predicted = predict(args.scoville, *key, sorted({int(r["bytes"]) for r in members}))
        for row in members:
            p = predicted[int(row["bytes"])]
            pred_us = p["time_s"] * 1e6
            pub_us = float(row["published_us"])
            chosen = p["algorithm"] + ("/" + p["protocol"] if p["protocol"] else "")
            results.append((key, row, pred_us, pub_us, (pred_us - pub_us) / pub_us, chosen))
    worst = max(abs(r[4]) for r in results)
    if args.csv:
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(["system", "collective", "ranks", "forced", "bytes", "predicted_us",
                    "published_us", "error", "chosen", "source"])
        for key, row, pred, pub, err, chosen in results:
            w.writerow([key[0], key[1], key[2], key[3] or "-", row["bytes"], f"{pred:.2f}",
                        f"{pub:.2f}", f"{err:+.3f}", chosen, row["source"]])
    else:
        print(f"{'system':<12} {'collective':<10} {'ranks':>5} {'forced':>6} {'bytes':>9} "
              f"{'pred(us)':>9} {'pub(us)':>8} {'error':>7}  chosen")
        for key, row, pred, pub, err, chosen in results:
            flag = "  <-- over" if abs(err) > args.max_error else ""
            print(f"{key[0]:<12} {key[1]:<10} {key[2]:>5} {key[3] or '-':>6} {row['bytes']:>9} "
                  f"{pred:9.2f} {pub:8.2f} {err:+7.1%}  {chosen}{flag}")
        mean = sum(abs(r[4]) for r in results) / len(results)
        print(f"# {len(results)} rows: mean |error| {mean:.1%}, worst {worst:.1%} "
              f"(limit {args.max_error:.0%})")
    return 1 if worst > args.max_error else 0


if __name__ == "__main__":
    sys.exit(main())
