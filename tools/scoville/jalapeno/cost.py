"""Cost per million tokens, InferenceX's way, with Jalapeño's unknown cost as a swept assumption.

InferenceX prices a GPU-hour at a hyperscaler's total cost of ownership and divides by the
throughput: $/Mtok = TCO per chip-hour / (3600 x tok/s per chip / 1e6) (../shared/REFERENCE.md,
"TCO", from InferenceX-app constants.ts). Jalapeño has no published price, so the study reports
(1) the break-even chip-hour cost at which Jalapeño's $/Mtok equals the GPU's (no assumption but
the GPUs' TCO) and (2) Jalapeño's $/Mtok built from a capital cost per chip, a lifetime and its
power, with each of those swept. Utilisation multiplies both sides alike (InferenceX's formula
has none: 1.0), so it moves absolute $/Mtok but no ratio.
"""

HOURS_PER_YEAR = 8760.0

# InferenceX hyperscaler TCO, $ per GPU-hour (REFERENCE.md, constants.ts) [SPEC of the benchmark].
GPU_TCO_USD_PER_HOUR = {"gb200-nvl72": 2.21, "gb300-nvl72": 2.652}
# All-in provisioned kW per GPU (CPU, network, other IT and facility overhead included) and the
# package TDP it is taken against (REFERENCE.md, constants.ts) [SPEC of the benchmark].
GPU_ALL_IN_KW = {"gb200-nvl72": 2.10, "gb300-nvl72": 2.10}
GPU_TDP_KW = {"gb200-nvl72": 1.2, "gb300-nvl72": 1.4}
JALAPENO_TDP_KW = 0.7  # REFERENCE.md [VENDOR]

# [ASSUMPTION] the nominal point of the sweep and its ranges.
USD_PER_KWH = 0.08  # industrial electricity, US average order of magnitude; swept 0.05-0.15
LIFETIME_YEARS = 5.0  # depreciation period; swept 4-6
# Jalapeño's all-in provisioned kW over its TDP: GB200's ratio (2.10 / 1.2 = 1.75) by default,
# swept over InferenceX's range of 1.5 (GB300) to 2.5 (H100).
ALL_IN_OVER_TDP = GPU_ALL_IN_KW["gb200-nvl72"] / GPU_TDP_KW["gb200-nvl72"]


def usd_per_mtok(usd_per_chip_hour, tok_s_per_chip, utilisation=1.0):
    """InferenceX's $/Mtok: chip-hour cost over the tokens a chip makes in an hour."""
    return usd_per_chip_hour / (3600.0 * tok_s_per_chip * utilisation / 1e6)


def power_usd_per_hour(all_in_kw, usd_per_kwh=USD_PER_KWH):
    return all_in_kw * usd_per_kwh


def chip_hour_usd(capital_usd, all_in_kw, lifetime_years=LIFETIME_YEARS, usd_per_kwh=USD_PER_KWH):
    """Straight-line capital over the lifetime plus all-in power (no cost of money: stated)."""
    return capital_usd / (lifetime_years * HOURS_PER_YEAR) + power_usd_per_hour(all_in_kw,
                                                                                usd_per_kwh)


def implied_gpu_capital_usd(gpu, lifetime_years=LIFETIME_YEARS, usd_per_kwh=USD_PER_KWH):
    """The capital per GPU (its share of rack, network and building included) that InferenceX's
    TCO implies once its all-in power is paid at the same electricity price."""
    hourly = GPU_TCO_USD_PER_HOUR[gpu] - power_usd_per_hour(GPU_ALL_IN_KW[gpu], usd_per_kwh)
    return hourly * lifetime_years * HOURS_PER_YEAR


def break_even_chip_hour_usd(gpu, jalapeno_tok_s, gpu_tok_s):
    """Jalapeño's chip-hour cost at which both cost the same per token."""
    return GPU_TCO_USD_PER_HOUR[gpu] * jalapeno_tok_s / gpu_tok_s


def break_even_capital_usd(gpu, jalapeno_tok_s, gpu_tok_s, all_in_over_tdp=ALL_IN_OVER_TDP,
                           lifetime_years=LIFETIME_YEARS, usd_per_kwh=USD_PER_KWH):
    """Jalapeño's capital per chip at break-even; negative when its power alone costs more."""
    hourly = break_even_chip_hour_usd(gpu, jalapeno_tok_s, gpu_tok_s) - power_usd_per_hour(
        JALAPENO_TDP_KW * all_in_over_tdp, usd_per_kwh)
    return hourly * lifetime_years * HOURS_PER_YEAR


def jalapeno_usd_per_mtok(capital_fraction, gpu, jalapeno_tok_s, all_in_over_tdp=ALL_IN_OVER_TDP,
                          lifetime_years=LIFETIME_YEARS, usd_per_kwh=USD_PER_KWH):
    """Jalapeño's $/Mtok with its capital per chip a fraction of the GPU's implied capital."""
    capital = capital_fraction * implied_gpu_capital_usd(gpu, lifetime_years, usd_per_kwh)
    hourly = chip_hour_usd(capital, JALAPENO_TDP_KW * all_in_over_tdp, lifetime_years,
                           usd_per_kwh)
    return usd_per_mtok(hourly, jalapeno_tok_s)


def markdown_lines(pairs):
    """pairs: [(label, gpu, gpu_label, jalapeno_tok_s, gpu_tok_s)] at each side's peak."""
    out = []
    out.append("| GPU | workload | GPU $/GPU-hr (InferenceX) | GPU $/Mtok | Jalapeño break-even "
               "$/chip-hr | break-even capital per chip | GPU's implied capital | Jalapeño "
               "$/Mtok at 25 / 50 / 100 % of the GPU's capital |")
    out.append("|---|---|---:|---:|---:|---:|---:|---|")
    for label, gpu, gpu_label, jal, g in pairs:
        tco = GPU_TCO_USD_PER_HOUR[gpu]
        fractions = " / ".join(f"{jalapeno_usd_per_mtok(f, gpu, jal):.4f}"
                               for f in (0.25, 0.5, 1.0))
        out.append(f"| {gpu_label} | {label} | {tco:.3f} | {usd_per_mtok(tco, g):.4f} | "
                   f"{break_even_chip_hour_usd(gpu, jal, g):.2f} | "
                   f"${break_even_capital_usd(gpu, jal, g):,.0f} | "
                   f"${implied_gpu_capital_usd(gpu):,.0f} | {fractions} |")
    out.append("")
    # The sweep of the assumptions that move Jalapeño's side alone, on the first pair.
    if pairs:
        label, gpu, gpu_label, jal, g = pairs[0]
        gpu_cost = usd_per_mtok(GPU_TCO_USD_PER_HOUR[gpu], g)
        out.append(f"How the assumptions move it ({label}, Jalapeño at half the "
                   f"{gpu_label}'s implied capital; Jalapeño $/Mtok over the GPU's "
                   f"{gpu_cost:.4f}):")
        out.append("")
        out.append("| assumption | values | Jalapeño / GPU $/Mtok |")
        out.append("|---|---|---|")
        sweeps = [
            ("electricity $/kWh", "usd_per_kwh", (0.05, USD_PER_KWH, 0.15)),
            ("lifetime, years", "lifetime_years", (4.0, LIFETIME_YEARS, 6.0)),
            ("Jalapeño all-in kW / TDP", "all_in_over_tdp", (1.5, ALL_IN_OVER_TDP, 2.5)),
        ]
        for name, arg, values in sweeps:
            cells = []
            for v in values:
                kw = {arg: v}
                # The GPU's capital is implied at the same lifetime and electricity price.
                jal_cost = jalapeno_usd_per_mtok(0.5, gpu, jal, **kw)
                cells.append(f"{v:g}: {jal_cost / gpu_cost:.2f}")
            out.append(f"| {name} | {', '.join(f'{v:g}' for v in values)} | "
                       f"{'; '.join(cells)} |")
        out.append("")
    return out
