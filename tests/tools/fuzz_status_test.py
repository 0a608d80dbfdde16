#!/usr/bin/python3
"""tools/fuzz-status: the shipped ledger parses, an entry meets the goal only with 2 million
executions and a plateau of 200,000, and a malformed ledger is refused with its line.
usage: fuzz_status_test.py SCOVILLE SOURCE_DIR WORKDIR
"""
import os
import subprocess
import sys

SOURCE, WORK = sys.argv[2], sys.argv[3]
STATUS = [sys.executable, os.path.join(SOURCE, "tools", "fuzz-status")]
HEADER = "date,entry,executions,wall_s,cov_edges,execs_since_new_cov,result,note\n"
failures = []


def status(rows):
    os.makedirs(WORK, exist_ok=True)
    path = os.path.join(WORK, "ledger.csv")
    with open(path, "w") as f:
        f.write(HEADER + "".join(rows))
    return subprocess.run(STATUS + [path], capture_output=True, text=True)


def line_of(result, entry):
    for line in result.stdout.splitlines():
        if line.split() and line.split()[0] == entry:
            return line
    return ""


def expect(condition, what):
    if not condition:
        failures.append(what)


shipped = subprocess.run(STATUS, capture_output=True, text=True)
expect(shipped.returncode in (0, 1) and "chakra" in shipped.stdout,
       f"the shipped ledger: rc {shipped.returncode}, {shipped.stderr}")

# Two runs adding up past 2 million, the last on a plateau: met.
done = status(["2026-12-03,unit,1500000,10,500,10,ok,a\n",
               "2026-12-03,unit,600000,10,510,250000,ok,b\n"])
expect(line_of(done, "unit").endswith("met"), f"unit should meet the goal: {line_of(done, 'unit')}")
expect("2,100,000" in line_of(done, "unit"), f"executions add up: {line_of(done, 'unit')}")
# Enough executions but coverage grew 150,000 executions before the end: not met.
growing = status(["2026-12-03,chip,3000000,10,500,150000,ok,a\n"])
expect("coverage still growing" in line_of(growing, "chip"), line_of(growing, "chip"))
expect(growing.returncode == 1, "an unmet goal exits 1")
# A plateau but too few executions: not met, with the shortfall.
short = status(["2026-12-03,model,1900000,10,500,300000,ok,a\n"])
expect("0.10 M executions short" in line_of(short, "model"), line_of(short, "model"))
# Malformed: refused with the file and line.
bad = status(["2026-12-03,model,many,10,500,300000,ok,a\n"])
expect(bad.returncode == 2 and "ledger.csv:2: executions" in bad.stderr, bad.stderr)
bad_columns = subprocess.run(STATUS + [os.path.join(SOURCE, "README.md")], capture_output=True,
                             text=True)
expect(bad_columns.returncode == 2 and "expected the columns" in bad_columns.stderr,
       bad_columns.stderr)

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
