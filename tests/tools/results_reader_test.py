#!/usr/bin/python3
"""tools/scoville/io.py reads every table of a run.h5 into a DataFrame with the file's columns,
row counts and units, and tools/results prints them. usage: results_reader_test.py SCOVILLE SOURCE_DIR WORKDIR
"""
import os
import subprocess
import sys

SCOVILLE, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.join(SOURCE, "tools"))
from scoville.io import ResultFile, ResultFormatError  # noqa: E402

os.makedirs(WORK, exist_ok=True)
path = os.path.join(WORK, "run.h5")
subprocess.run([SCOVILLE, "run", "--chip", "jalapeno", "--batch", "2", "--isl", "512", "--osl",
                "64", "-o", path], check=True, capture_output=True)
failures = []
with ResultFile(path) as run:
    names = run.tables()
    for expected in ("summary", "phases", "energy", "iterations", "ops"):
        if expected not in names:
            failures.append(f"missing table {expected}")
    phases = run.table("phases")
    if list(phases.columns) != run.columns("phases"):
        failures.append("column order differs from the file's columns attribute")
    if sorted(phases["phase"]) != ["decode", "prefill"]:
        failures.append(f"phases: {list(phases['phase'])}")
    if run.units("phases")["time_s"] != "s":
        failures.append("time_s units")
    ops = run.table("ops")
    # The ops of the prefill iteration add up to the iteration's time (ops run back to back).
    iterations = run.table("iterations")
    prefill = iterations[iterations["phase"] == "prefill"].iloc[0]
    span = ops[ops["iteration"] == prefill["iteration"]]
    end = (span["start_s"] + span["dur_s"]).max()
    if abs(end - prefill["time_s"]) > 1e-9 * prefill["time_s"]:
        failures.append(f"prefill ops end at {end}, iteration time {prefill['time_s']}")
    if run.provenance["schema"] != "scoville.results":
        failures.append("provenance schema")

listing = subprocess.run([os.path.join(SOURCE, "tools", "results"), path], capture_output=True,
                         text=True)
if listing.returncode != 0 or "time_s [s]" not in listing.stdout:
    failures.append(f"tools/results listing: {listing.stdout} {listing.stderr}")
missing = subprocess.run([os.path.join(SOURCE, "tools", "results"), path, "nope"],
                         capture_output=True, text=True)
if missing.returncode != 2 or "no table 'nope'" not in missing.stderr:
    failures.append(f"tools/results unknown table: {missing.stderr}")

not_ours = os.path.join(WORK, "other.h5")
import h5py  # noqa: E402
with h5py.File(not_ours, "w") as f:
    f.attrs["schema"] = "something.else"
try:
    ResultFile(not_ours)
    failures.append("a foreign HDF5 file was accepted")
except ResultFormatError:
    pass

for f in failures:
    print("FAIL:", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
