#!/usr/bin/python3
"""tools/energy-validation/fit_active_power.py's parts whose answers are known by hand: the MAC
prices move so that every precision's energy per cycle keeps its difference from BF16's, the chip
facts read from `scoville config dump`, the edits to a copy of arch/ (and the refusal of a
non-positive price), the one-dimensional minimiser; and that the shipped chip files and energy
tables are where the tool's rule puts them.
usage: fit_active_power_test.py SCOVILLE SOURCE_DIR WORKDIR
"""
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tool_module  # noqa: E402

scoville, source, work = sys.argv[1], sys.argv[2], sys.argv[3]
fit = tool_module.load(source, "tools/energy-validation/fit_active_power.py", "fit_active_power")
check = tool_module.Checks()

# Blackwell's table: BF16 0.8, FP8 0.45, FP4 0.25 pJ on 4096 / 8192 / 16384 MACs per cycle. Moved
# by -0.236 pJ per BF16 MAC, FP8 moves by half that and FP4 by a quarter: the per-cycle
# differences 2 x 0.45 - 0.8 = 0.1 and 4 x 0.25 - 0.8 = 0.2 stay.
macs = {"bf16": 4096, "fp8": 8192, "fp4": 16384}
moved = fit.shifted_prices({"bf16": 0.8, "fp8": 0.45, "fp4": 0.25}, macs, -0.236)
check(abs(moved["bf16"] - 0.564) < 1e-12, "BF16 0.8 - 0.236 = 0.564 pJ: %s" % moved)
check(abs(moved["fp8"] - 0.332) < 1e-12, "FP8 0.45 - 0.118 = 0.332 pJ: %s" % moved)
check(abs(moved["fp4"] - 0.191) < 1e-12, "FP4 0.25 - 0.059 = 0.191 pJ: %s" % moved)
check(abs(2 * moved["fp8"] - moved["bf16"] - 0.1) < 1e-12, "FP8 cycle difference kept")
check(abs(4 * moved["fp4"] - moved["bf16"] - 0.2) < 1e-12, "FP4 cycle difference kept")
# A precision the chip lacks (Hopper has no FP4 MACs) is not moved.
check("fp4" not in fit.shifted_prices({"bf16": 0.8, "fp8": 0.62, "fp4": 0.25},
                                      {"bf16": 2048, "fp8": 4096}, -0.1), "no FP4 on Hopper")

# The minimiser: (a - 3)^2 on [0, 10].
check(abs(fit.golden(lambda a: (a - 3.0) ** 2, 0.0, 10.0) - 3.0) < 0.02, "golden section")

# The anchor chip's facts, read back from `scoville config dump`: H100 132 SMs x 64 x 32 x k at
# 1.83 GHz.
arch = os.path.join(source, "arch")
clock, tiles, chip_macs, active = fit.anchor_facts(scoville, arch, "h100")
check(clock == 1.83e9 and tiles == 132, "h100 clock and SMs: %s %s" % (clock, tiles))
check(chip_macs == {"bf16": 2048, "fp8": 4096}, "h100 MACs per cycle: %s" % chip_macs)
check(active > 0, "h100 active power read: %s" % active)

# The shipped files are where the rule puts them: the MAC prices are the pre-fit ones (tsmc-4n
# BF16 0.8 / FP8 0.62 at 100 W; tsmc-4np 0.8 / 0.45 / 0.25 at 200 W) moved by the fitted active
# power's rise per cycle of the anchor chip, to the 3 digits the files state.
for die, before_active, before in (("hopper", 100.0, {"bf16": 0.8, "fp8": 0.62}),
                                   ("blackwell", 200.0, {"bf16": 0.8, "fp8": 0.45, "fp4": 0.25})):
    _, chips, table, anchor = fit.DIES[die]
    a_clock, a_tiles, a_macs, a_active = fit.anchor_facts(scoville, arch, anchor)
    shipped = fit.mac_prices(arch, table)
    d = -(a_active - before_active) / (a_clock * a_tiles * a_macs["bf16"]) * 1e12
    expected = fit.shifted_prices(before, a_macs, d)
    for p, v in expected.items():
        check(abs(shipped[p] - v) < 0.0015, "%s %s: shipped %s, rule %s" % (table, p, shipped[p], v))
    for chip in chips:
        text = open(os.path.join(arch, "chips", chip + ".yaml")).read()
        m = re.search(r"^    active: ([0-9.]+) W", text, re.MULTILINE)
        check(m is not None and float(m.group(1)) == a_active,
              "%s carries %s's active power %s W" % (chip, anchor, a_active))

# Editing a copy of arch/: Hopper 100 W higher lowers the BF16 price by 100 W / 494.7 T MAC/s.
copy = os.path.join(work, "arch")
shutil.rmtree(copy, ignore_errors=True)
os.makedirs(work, exist_ok=True)
shutil.copytree(arch, copy)
facts = fit.anchor_facts(scoville, copy, "h100")
prices = fit.mac_prices(copy, "tsmc-4n")
new = fit.write_die(copy, "hopper", facts[3] + 100.0, facts, prices)
step = 100.0 / (1.83e9 * 132 * 2048) * 1e12
check(abs(new["bf16"] - (prices["bf16"] - step)) < 1e-12, "BF16 price lowered by %.4f pJ" % step)
written = fit.mac_prices(copy, "tsmc-4n")
check(abs(written["bf16"] - new["bf16"]) < 1e-5 and abs(written["fp8"] - new["fp8"]) < 1e-5,
      "prices written: %s" % written)
for chip in ("h100", "h200"):
    text = open(os.path.join(copy, "chips", chip + ".yaml")).read()
    check(re.search(r"^    active: %g W" % (facts[3] + 100.0), text, re.MULTILINE) is not None,
          "%s active written" % chip)
# Beyond the bound the BF16 price would be negative: refused.
try:
    fit.write_die(copy, "hopper", facts[3] + 10000.0, facts, prices)
    check(False, "a non-positive MAC price is refused")
except SystemExit as e:
    check("MAC price <= 0" in str(e), "refusal names the price: %s" % e)
shutil.rmtree(copy)

check.finish("fit_active_power")
