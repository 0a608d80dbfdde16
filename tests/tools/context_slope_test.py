#!/usr/bin/python3
"""tools/context-slope on made-up validate rows: two rows that differ only in input length make
a pair whose TPOT growth is published minus simulated as given; a row without a predicted
interactivity, a row alone and a row of another concurrency make none; of three lengths the
shortest and longest pair; an unreadable file exits 2.
usage: context_slope_test.py SCOVILLE SOURCE_DIR WORKDIR
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tool_module  # noqa: E402

TOOL = os.path.join(sys.argv[2], "tools/context-slope")
slope = tool_module.load(sys.argv[2], "tools/context-slope", "context_slope")
check = tool_module.Checks()


def row(rid, isl, tpot_pub, tpot_sim, conc=4, system="h200-hgx8", model="deepseek-r1"):
    """A validate --json row with the given TPOTs (ms) as interactivities."""
    return {"id": rid, "system": system, "system_file": system, "stack": "sglang", "model": model,
            "precision": "fp8", "concurrency": conc, "replica_chips": 8, "osl": 1024, "isl": isl,
            "published_intvty": 1000.0 / tpot_pub if tpot_pub else None,
            "predicted_intvty": 1000.0 / tpot_sim if tpot_sim else None}


rows = [
    row("1", 1024, 12.0, 10.5), row("2", 8192, 13.5, 11.0),          # a pair: 1.5 / 0.5 = 3
    row("3", 1024, 9.0, 9.0, model="m2"), row("4", 4096, 10.0, 9.5, model="m2"),
    row("5", 8192, 11.0, 10.0, model="m2"),                          # three lengths: 1 and 5
    row("6", 8192, 20.0, None, model="m3"), row("7", 1024, 18.0, 17.0, model="m3"),  # none
    row("8", 8192, 30.0, 25.0, conc=64),                             # alone at concurrency 64
]
found = slope.pairs(rows)
ids = [(a["id"], b["id"]) for a, b in found]
check(("1", "2") in ids, "rows 1 and 2 pair: %s" % ids)
check(("3", "5") in ids and ("3", "4") not in ids, "the shortest and longest prompts pair: %s" % ids)
check(len(ids) == 2, "no other pair (a row without a prediction, a row alone): %s" % ids)
pub, sim, ratio = slope.growth(*found[[i for i, p in enumerate(ids) if p == ("1", "2")][0]])
check(abs(pub - 1.5) < 1e-9 and abs(sim - 0.5) < 1e-9, "growth 1.5 / 0.5 ms: %s %s" % (pub, sim))
check(abs(ratio - 3.0) < 1e-9, "ratio 3: %s" % ratio)
check(slope.growth(row("a", 1024, 5, 5), row("b", 8192, 6, 5))[2] is None,
      "no ratio where the simulated TPOT does not grow")
check(slope.tpot_ms(0) is None and slope.tpot_ms(None) is None, "no TPOT of no interactivity")

work = sys.argv[3]
os.makedirs(work, exist_ok=True)
path = os.path.join(work, "validate.json")
with open(path, "w") as f:
    json.dump({"rows": rows}, f)
out = subprocess.run([TOOL, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
check(out.returncode == 0, "exit 0: %s" % out.stderr)
lines = [l for l in out.stdout.splitlines() if l.startswith("| 1 / 2 ")]
check(len(lines) == 1 and "| 1.50 | 0.50 | 3.00 |" in lines[0], "the pair's line: %s" % lines)
check(len(out.stdout.splitlines()) == 4, "a header, a rule and two pairs:\n%s" % out.stdout)
bad = subprocess.run([TOOL, os.path.join(work, "missing.json")], stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, text=True)
check(bad.returncode == 2 and "missing.json" in bad.stderr, "an unreadable file: exit 2, named")
check.finish("context_slope")
