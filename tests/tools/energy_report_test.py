#!/usr/bin/python3
"""tools/energy-validation/energy_report.py's parts on made-up rows whose answers are known by
hand: signed errors, batch classes, the MAPE groups and the issue-30 floor, the Markdown rows.
usage: energy_report_test.py SCOVILLE SOURCE_DIR WORKDIR (only SOURCE_DIR is used)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tool_module  # noqa: E402

report = tool_module.load(sys.argv[2], "tools/energy-validation/energy_report.py", "energy_report")
check = tool_module.Checks()


def row(i, gpu, seqs, measured_j, predicted_j, measured_w=100.0, predicted_w=100.0):
    return {"id": "E%d" % i, "gpu": gpu, "chips": 1, "model": "m", "max_num_seqs": seqs,
            "measured_j_per_token": measured_j, "predicted_j_per_token": predicted_j,
            "measured_power_w": measured_w, "predicted_power_w": predicted_w,
            "measured_output_tok_s": 10.0, "predicted_output_tok_s": 12.0}


check(abs(report.signed_error(0.9, 1.0) + 10.0) < 1e-9, "signed error -10 %")
check(abs(report.signed_error(1.5, 1.0) - 50.0) < 1e-9, "signed error +50 %")
check([report.batch_class(n) for n in (8, 16, 64, 128, 256)] ==
      ["low", "low", "middle", "high", "high"], "batch classes")

# Errors +10 %, -20 % (power -50 %), +30 % and a skipped row: MAPE 20 %, worst 30 %.
rows = [row(1, "H100", 8, 1.0, 1.1), row(2, "H100", 256, 1.0, 0.8, 100.0, 50.0),
        row(3, "B200", 64, 2.0, 2.6), {"id": "E4", "gpu": "B200", "chips": 1, "model": "m",
                                       "max_num_seqs": 8, "skipped": "node"}]
g = report.summarize(rows)
check(g["all"]["rows"] == 3, "three rows predicted, the skipped one left out")
check(abs(g["all"]["energy"] - 20.0) < 1e-9, "energy MAPE (10 + 20 + 30) / 3 = 20")
check(abs(g["all"]["worst"] - 30.0) < 1e-9, "worst 30")
check(abs(g["all"]["power"] - 50.0 / 3) < 1e-9, "power MAPE (0 + 50 + 0) / 3")
check(abs(g["gpu H100"]["energy"] - 15.0) < 1e-9, "H100 MAPE (10 + 20) / 2")
check(g["batch low"]["rows"] == 1 and g["batch high"]["rows"] == 1, "one low, one high row")

# The floor needs 20 rows: three are too few whatever their errors.
check(not report.floor_holds(g), "3 rows cannot meet the floor")
many = [row(i, "H100", 8 if i % 2 else 256, 1.0, 1.1) for i in range(20)]
check(report.floor_holds(report.summarize(many)), "20 rows at 10 % meet the floor")
worse = many + [row(21, "H100", 64, 1.0, 1.36)]
check(not report.floor_holds(report.summarize(worse)), "one row at 36 % breaks it")
only_low = [row(i, "H100", 8, 1.0, 1.1) for i in range(20)]
check(not report.floor_holds(report.summarize(only_low)), "no high-batch row breaks it")

text = report.table(rows)
check("| E1 | H100 | 1 | m | 8 | 1.0000 | 1.1000 | +10.0% |" in text, "a Markdown row")
check("| E4 | B200 | 1 | m | 8 | skipped: node |" in text, "a skipped row")
check("| all | 3 | 20.0% | 30.0% | 16.7% |" in report.summary_table(g), "the summary row")

# The median ITL table: rows without a measured ITL are left out; -20 % and +10 %: MAPE 15 %,
# worst 20 %, mean signed -5 %.
itl_rows = [dict(row(1, "H100", 8, 1.0, 1.0), measured_median_itl_ms=10.0,
                 predicted_median_itl_ms=8.0),
            dict(row(2, "B200", 8, 1.0, 1.0), measured_median_itl_ms=20.0,
                 predicted_median_itl_ms=22.0),
            row(3, "B200", 8, 1.0, 1.0)]
itl = report.itl_table(itl_rows)
check("| E1 | H100 | m | 8 | 10.00 | 8.00 | -20.0% | +20.0% |" in itl, "a median ITL row")
check("| E3 |" not in itl, "a row without a measured ITL is left out")
check("| all | 2 | 15.0% | 20.0% | -5.0% |" in itl, "the median ITL summary row")
check(report.itl_table([row(1, "H100", 8, 1.0, 1.0)]) == "", "no table without measured ITLs")

check.finish("energy_report")
