#!/usr/bin/python3
"""Fits the GPUs' active power (chip file `power.active`) on measured board power that is not
validated on: the ML.ENERGY v3.0 rows at max_num_seqs 16, 32 and 128
(workloads/measurements/energy/ml-energy-v3-fit.csv; docs/power.md "Active power").

usage: tools/energy-validation/fit_active_power.py [--scoville BIN] [--fit CSV] [--check A_H B_B]

One value per die, fitted by least squares of ln(predicted / measured average power) over the
die's rows: Hopper (H100 rows; h100.yaml and h200.yaml carry it) and Blackwell (B200 rows;
b200, b300, gb200 and gb300). Raising the active power by dA leaves a dense matmul's power at its
sustained clock unchanged only if the MACs give it back: the energy table's BF16 price falls by
dA / (tile clock x tiles x BF16 MACs per cycle) of the table's anchor chip (H100 for tsmc-4n,
B200 for tsmc-4np), and every other precision's price by the same amount per BF16-rate MAC
slot, so that each precision's energy per cycle keeps its difference from BF16's and every
power-limited matrix clock (models/chip/matrix_clocks.hpp) stays where its measurement put it.
Op times do not move (the active power times no op on a chip without library macro tiles:
models::active_power_times_ops), so the op cache of the shipped files answers every run.

Each row's predicted power is linear in the active power below the cap; the tool runs
`scoville validate --energy` at the shipped values and 200 W above (below, where above would
leave a MAC price at zero or less), solves for the minimum, and
runs once more at the fitted values to confirm. --check runs the validated rows
(ml-energy-v3.csv) at given active powers (W, Hopper then Blackwell) instead. Prints the fitted
values and the energy-table prices to write. Python 3 standard library only; nothing under the
repository is modified (the edited files live in a temporary copy of arch/).
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIES = {
    # die: (GPU in the rows, chip files that carry it, energy table, anchor chip of the table)
    "hopper": ("H100", ("h100", "h200"), "tsmc-4n", "h100"),
    "blackwell": ("B200", ("b200", "b300", "gb200", "gb300"), "tsmc-4np", "b200"),
}
PRECISIONS = ("bf16", "fp8", "fp4")
STEP_W = 200.0
PROGRAM = os.path.splitext(os.path.basename(sys.argv[0]))[0]  # the tool named in its errors


def quantity(text, unit_scale):
    """'1.83 GHz' -> 1.83e9 given {'GHz': 1e9, ...}."""
    value, unit = text.split()[:2]
    return float(value) * unit_scale[unit]


def scoville_output(command, env=None):
    """stdout of a scoville command; its own message and a non-zero exit if it fails."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env)
    except OSError as e:
        sys.exit("%s: cannot run %s: %s" % (PROGRAM, command[0], e.strerror))
    if done.returncode != 0:
        sys.exit("%s: `%s` failed (exit %d):\n%s" % (
            PROGRAM, " ".join(command), done.returncode, done.stderr.strip()))
    return done.stdout


def dump(scoville, path):
    return scoville_output([scoville, "config", "dump", path])


def field(text, key):
    m = re.search(r"^\s*%s:\s*(.+)$" % re.escape(key), text, re.MULTILINE)
    if not m:
        sys.exit("fit_active_power: no '%s' in a dump" % key)
    return m.group(1).strip()


def anchor_facts(scoville, arch, chip):
    """Tile clock (Hz), tiles, MACs per cycle per tile by precision, active power (W)."""
    text = dump(scoville, os.path.join(arch, "chips", chip + ".yaml"))
    clock = quantity(field(text, "clock"), {"GHz": 1e9, "MHz": 1e6})
    tiles = int(field(text, "count"))
    rows, cols = int(field(text, "rows")), int(field(text, "cols"))
    k = dict(re.findall(r"^\s+(bf16|fp8|fp4): (\d+)$", text.split("k_per_cycle:")[1]
                        .split("pipeline_latency_cycles")[0], re.MULTILINE))
    macs = {p: rows * cols * int(k[p]) for p in k}
    active = quantity(field(text, "active"), {"W": 1.0, "kW": 1e3})
    return clock, tiles, macs, active


def mac_prices(arch, table):
    text = open(os.path.join(arch, "energy", table + ".yaml")).read()
    block = text.split("  mac:\n")[1]
    return {p: float(v) for p, v in re.findall(r"^    (bf16|fp8|fp4): ([0-9.]+) pJ", block,
                                                 re.MULTILINE)}


def set_line(path, pattern, replacement):
    text = open(path).read()
    new, n = re.subn(pattern, replacement, text, count=1, flags=re.MULTILINE)
    if n != 1:
        sys.exit("fit_active_power: %s: no line matching %s" % (path, pattern))
    with open(path, "w") as f:
        f.write(new)


def shifted_prices(prices, macs, d_bf16):
    """Every precision's price moved by the same energy per BF16-rate MAC slot."""
    return {p: prices[p] + d_bf16 * macs["bf16"] / macs[p] for p in prices if p in macs}


def write_die(arch, die, active_w, facts, prices):
    _, chips, table, _ = DIES[die]
    clock, tiles, macs, active0 = facts
    d_bf16 = -(active_w - active0) / (clock * tiles * macs["bf16"]) * 1e12  # pJ
    new = shifted_prices(prices, macs, d_bf16)
    if min(new.values()) <= 0:
        sys.exit("fit_active_power: %s at %.0f W leaves a MAC price <= 0: %s" % (die, active_w, new))
    for chip in chips:
        set_line(os.path.join(arch, "chips", chip + ".yaml"), r"^(    active: )[0-9.]+ W",
                 r"\g<1>%.6g W" % active_w)
    for p, v in new.items():
        set_line(os.path.join(arch, "energy", table + ".yaml"),
                 r"^(    %s: )[0-9.]+ pJ" % p, r"\g<1>%.6g pJ" % v)
    return new


def run(scoville, rows_csv, actives, facts, prices):
    """{row id: (gpu, measured W, predicted W)} with the dies' active powers set."""
    with tempfile.TemporaryDirectory() as tmp:
        arch = os.path.join(tmp, "arch")
        shutil.copytree(os.path.join(ROOT, "arch"), arch)
        os.symlink(os.path.join(ROOT, "workloads"), os.path.join(tmp, "workloads"))
        for die, a in actives.items():
            write_die(arch, die, a, facts[die], prices[die])
        env = dict(os.environ, SCOVILLE_DATA_DIR=tmp)
        out = scoville_output([scoville, "validate", "--energy", rows_csv, "--json", "--quiet"],
                              env)
    result = {}
    for r in json.loads(out)["rows"]:
        if "skipped" not in r:
            result[r["id"]] = (r["gpu"], r["measured_power_w"], r["predicted_power_w"],
                               r["measured_j_per_token"], r["predicted_j_per_token"])
    return result


def ln_error(pred, meas):
    return math.log(pred / meas)


def golden(f, lo, hi, tol=0.01):
    g = (math.sqrt(5) - 1) / 2
    a, b = lo, hi
    c, d = b - g * (b - a), a + g * (b - a)
    while b - a > tol:
        if f(c) < f(d):
            b, d = d, c
            c = b - g * (b - a)
        else:
            a, c = c, d
            d = a + g * (b - a)
    return (a + b) / 2


def mape(pairs):
    return 100.0 * sum(abs(p / m - 1) for m, p in pairs) / len(pairs)


def summary(label, result):
    for gpu in ("H100", "B200"):
        rows = [v for v in result.values() if v[0] == gpu]
        print("%-28s %s: %2d rows, power MAPE %5.1f %%, energy/token MAPE %5.1f %%" % (
            label, gpu, len(rows), mape([(v[1], v[2]) for v in rows]),
            mape([(v[3], v[4]) for v in rows])))
    allr = list(result.values())
    print("%-28s all:  %2d rows, power MAPE %5.1f %%, energy/token MAPE %5.1f %%, worst energy "
          "%5.1f %%" % (label, len(allr), mape([(v[1], v[2]) for v in allr]),
                        mape([(v[3], v[4]) for v in allr]),
                        max(100 * abs(v[4] / v[3] - 1) for v in allr)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scoville", default=os.path.join(ROOT, "build/release/sim/scoville"))
    ap.add_argument("--fit", default=os.path.join(
        ROOT, "workloads/measurements/energy/ml-energy-v3-fit.csv"))
    ap.add_argument("--check", nargs=2, type=float, metavar=("HOPPER_W", "BLACKWELL_W"))
    args = ap.parse_args()
    arch = os.path.join(ROOT, "arch")
    facts = {die: anchor_facts(args.scoville, arch, anchor) for die, (_, _, _, anchor) in
             DIES.items()}
    prices = {die: mac_prices(arch, table) for die, (_, _, table, _) in DIES.items()}
    shipped = {die: facts[die][3] for die in DIES}

    if args.check:
        validated = os.path.join(ROOT, "workloads/measurements/energy/ml-energy-v3.csv")
        actives = {"hopper": args.check[0], "blackwell": args.check[1]}
        summary("validated rows, shipped", run(args.scoville, validated, shipped, facts, prices))
        summary("validated rows, %.0f/%.0f W" % (args.check[0], args.check[1]),
                run(args.scoville, validated, actives, facts, prices))
        return

    # The largest active power whose BF16 MAC price stays positive, per die; the second run
    # steps each die's active power by STEP_W up, or down where up would pass that ceiling.
    ceilings, steps = {}, {}
    for die in DIES:
        clock, tiles, macs, active0 = facts[die]
        ceilings[die] = active0 + prices[die]["bf16"] * 1e-12 * clock * tiles * macs["bf16"]
        steps[die] = STEP_W if active0 + STEP_W < ceilings[die] else -min(STEP_W, active0)
    base = run(args.scoville, args.fit, shipped, facts, prices)
    stepped = run(args.scoville, args.fit, {d: a + steps[d] for d, a in shipped.items()}, facts,
                  prices)
    fitted = {}
    for die, (gpu, _, table, anchor) in DIES.items():
        clock, tiles, macs, active0 = facts[die]
        ceiling = ceilings[die]
        rows = [(base[i][1], base[i][2], (stepped[i][2] - base[i][2]) / steps[die])
                for i in base if base[i][0] == gpu]
        cost = lambda a: sum(ln_error(p0 + k * (a - active0), m) ** 2 for m, p0, k in rows)
        a = golden(cost, 0.0, ceiling)
        fitted[die] = round(a)
        print("%s (%s rows: %d): shipped %.0f W, fitted %.1f W (bounds 0-%.0f W: the BF16 MAC "
              "price of %s stays positive), kept %d W" % (die, gpu, len(rows), active0, a,
                                                          ceiling, anchor, fitted[die]))
        d_bf16 = -(fitted[die] - active0) / (clock * tiles * macs["bf16"]) * 1e12
        for p, v in shifted_prices(prices[die], macs, d_bf16).items():
            print("    %s %s: %.6g pJ -> %.3g pJ" % (table, p, prices[die][p], v))
    summary("fit rows, shipped", base)
    summary("fit rows, fitted", run(args.scoville, args.fit, fitted, facts, prices))


if __name__ == "__main__":
    main()
