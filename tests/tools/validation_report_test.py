#!/usr/bin/python3
"""tools/validation-report's floor and band parts on made-up rows whose answers are known by hand:
concurrency bands, MAPE per group, issue 25's floors (held-out MAPE, worst system, each low-
concurrency row, rows predicted), the band table.
usage: validation_report_test.py SCOVILLE SOURCE_DIR WORKDIR (only SOURCE_DIR is used)
"""
import importlib.machinery
import importlib.util
import os
import sys

loader = importlib.machinery.SourceFileLoader(
    "validation_report", os.path.join(sys.argv[2], "tools", "validation-report"))
spec = importlib.util.spec_from_loader("validation_report", loader)
report = importlib.util.module_from_spec(spec)
loader.exec_module(report)

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def row(i, system, conc, tput_err, intvty_err, held=True, stack="tensorrt-llm"):
    return {"id": str(i), "system_file": system, "stack": stack, "concurrency": conc,
            "set": "held-out" if held else "fit", "error_pct": tput_err,
            "intvty_error_pct": intvty_err}


def uncalibrated(i, system, conc, tput_err, intvty_err):
    r = row(i, system, conc, tput_err, intvty_err)
    r["set"] = ""  # validate's set on a system without an overlay
    return r


check([report.band_of(c) for c in (1, 16, 17, 64, 256, 257, 1024)] ==
      ["1-16", "1-16", "17-256", "17-256", "17-256", "257+", "257+"], "bands")
check(report.mape([10.0, -20.0, None]) == 15.0, "MAPE ignores missing errors, takes magnitudes")
check(report.mape([]) is None, "MAPE of nothing is None")

# Not fitted (held out, or on a system without a fit): throughput errors +10, -10, +4 (MAPE 8),
# interactivity -6, +12, none (MAPE 9);
# a fitted row at +50 % must not count; a skipped row is not predicted.
rows = [row(1, "a", 4, 10.0, -6.0), row(2, "b", 64, -10.0, 12.0),
        uncalibrated(3, "b", 512, 4.0, None),
        row(4, "a", 8, 50.0, 50.0, held=False), {"id": "5", "skipped": "model not known"}]
f = {what.split(" <=")[0].split(" within")[0]: (figure, ok) for what, figure, ok in
     report.floors(rows)}
check(f["throughput MAPE"] == ("8.0 % (3 rows)", True), f"throughput floor {f}")
check(f["interactivity MAPE"] == ("9.0 % (2 rows)", True), f"interactivity floor {f}")
# System b: throughput MAPE (10 + 4) / 2 = 7, interactivity 12: its worst is 12.
check(f["no system worse than 20 %"] == ("worst b at 12.0 %", True),
      f"worst system {f}")
check(f["interactivity at concurrency"] == ("1 of 1 rows within", True),
      f"low-concurrency rows {f}")
check(f["at least 150 rows predicted"] == ("4 of 5", False), f"rows predicted {f}")

# A low-concurrency held-out row off by 20 % fails that floor and is named.
f2 = {what.split(" <=")[0].split(" within")[0]: (figure, ok) for what, figure, ok in
      report.floors(rows + [row(6, "a", 2, 1.0, -20.0)])}
check(f2["interactivity at concurrency"] == ("1 of 2 rows within; off: 6 -20.0 %",
                                                        False), f"low-concurrency miss {f2}")

table = report.band_table(rows).splitlines()
check(len(table) == 2 + 3, f"one line per (system, stack, band): {table}")
check(table[2].startswith("| a | tensorrt-llm | 1-16 | 2 / 2 | 30.0 % | 28.0 % | 1 | 10.0 % | "
                          "6.0 % |"), f"band line a/1-16: {table[2]}")

# The largest errors first, by the worse of the two; skipped rows left out; ties by id.
worst = report.worst_rows(rows + [row(7, "c", 32, 1.0, -40.0)], count=2).splitlines()
check(len(worst) == 2 + 2, f"two rows asked for: {worst}")
check(worst[2].startswith("| 4 | a |") and "+50.0 %" in worst[2], f"row 4 (50 %) first: {worst}")
check(worst[3].startswith("| 7 | c |") and "-40.0 %" in worst[3], f"row 7 (40 %) next: {worst}")

if failures:
    print("FAILED:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("validation-report parts: all checks passed")
