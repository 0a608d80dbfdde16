"""The Jalapeño report's check sections: every published figure against the baseline, the
cost per million tokens, Vera Rubin as the third baseline, the GPU side at low concurrency, the
software-overhead sweep and what the shortened sweep changes (document.build_report adds them).
"""

import math

from . import cost, published, study
from .analysis import best_latency, peak, ratio_rows
from .document_deployed import best_deployed
from .study import LONG_PROMPTS, MAX_CONCURRENCY, RUBIN, RUBIN_LABEL, RUBIN_TDP_W


def fmt(v, d=2):
    """v with d decimals, n/a for None or NaN."""
    return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{d}f}"


def sweep_check_section(add, s, base, checks):
    """The report's check of the shortened sweep (sweep_check)."""
    full_requests = LONG_PROMPTS * sum(2**i for i in range(11))
    short_requests = s.prompts * sum(s.concurrency)
    add("## What the shortened sweep changes")
    add("")
    add(f"The sweep above runs {s.prompts} x N requests at N in {s.concurrency}; InferenceX "
        f"runs {LONG_PROMPTS} x N at every power of two up to {MAX_CONCURRENCY} "
        f"(`tools/jalapeno-study --full` does that, with {full_requests / short_requests:.0f} "
        "times the requests per mapping). Here each "
        f"baseline's peak-throughput and best-latency points are rerun at {s.long_prompts} x N "
        "requests, and the peak mapping at 2N, the next power of two the sweep skips (a peak "
        "at the sweep's top may not be the system's peak). Changes are relative to the "
        "shortened sweep's point.")
    add("")
    add(f"| workload | system | peak tok/s/chip | at {s.long_prompts} x N | at 2N | "
        f"best E2E intvty tok/s/user | at {s.long_prompts} x N |")
    add("|---|---|---:|---:|---:|---:|---:|")

    def change(frame, col, ref):
        if frame is None or not len(frame):
            return "n/a"
        v = float(frame.iloc[0][col])
        return f"{v:.0f} ({v / ref - 1:+.1%})"

    for w in study.WORKLOADS:
        for sysname in ("jalapeno-128", w["gpu"]):
            c, f = checks.get((w["key"], sysname)), base.get((w["key"], sysname))
            if c is None or f is None:
                continue
            p, b = peak(f), best_latency(f)
            nxt = (f"N = {2 * int(p['concurrency'])}: " + change(
                c["peak_next"], "tput_per_chip", p["tput_per_chip"])) if "peak_next" in c else \
                "in the sweep"
            add(f"| {w['key']} | {sysname} | {p['tput_per_chip']:.0f} at N = "
                f"{int(p['concurrency'])} | {change(c['peak_long'], 'tput_per_chip', p['tput_per_chip'])}"
                f" | {nxt} | {b['median_e2e_intvty']:.0f} at N = {int(b['concurrency'])} | "
                f"{change(c['best_long'], 'median_e2e_intvty', b['median_e2e_intvty'])} |")
    add("")
    add("The headline ratios recomputed from the rerun points (per kW: each side's best of its "
        f"peak at {s.long_prompts} x N and at 2N; latency: the best-latency points at "
        f"{s.long_prompts} x N):")
    add("")
    add("| workload | per kW, shortened | per kW, rerun | latency (best), shortened | "
        "latency (best), rerun |")
    add("|---|---:|---:|---:|---:|")
    summary = ratio_rows(base)
    for w in study.WORKLOADS:
        k = w["key"]
        cj, cg = checks.get((k, "jalapeno-128")), checks.get((k, w["gpu"]))
        if k not in summary or cj is None or cg is None:
            continue

        def best_kw(c):
            vals = [float(c[n].iloc[0]["tput_per_kw_tdp"]) for n in ("peak_long", "peak_next")
                    if c.get(n) is not None and len(c[n])]
            return max(vals) if vals else float("nan")

        def intvty(c):
            f = c.get("best_long")
            return float(f.iloc[0]["median_e2e_intvty"]) if f is not None and len(f) else \
                float("nan")

        r = summary[k]
        add(f"| {k} | {r['kw_tdp']:.2f} | {fmt(best_kw(cj) / best_kw(cg))} | "
            f"{r['lat_best']:.2f} | {fmt(intvty(cj) / intvty(cg))} |")
    add("")


def overhead_section(add, s, base, overheads):
    """The report's software-overhead sweep (overhead_sweep)."""
    add("## How much software overhead the published latency leaves Jalapeño")
    add("")
    add("The headline gives Jalapeño no per-iteration software overhead (persistent kernels), "
        + ("the GPUs their stack's fitted software time" if study.calibration_source() else
           f"the GPUs none beyond their `{study.SOFTWARE['gpu']}` profile (uncalibrated at "
           "this fidelity)") + ". Here Jalapeño's baseline peak-throughput and best-latency "
        "points are rerun with a per-iteration overhead added to its transferred overlay "
        "(`per_iteration_overhead`), against the same GPU baselines. `implied` is the "
        "overhead at which the best-latency ratio meets the published one, interpolated "
        "linearly in 1 / ratio (a step's time grows linearly with the overhead); `none` when "
        "even zero overhead leaves Jalapeño short of the published ratio (by how much in "
        "brackets).")
    add("")
    values = [0.0] + list(s.overheads_ms)
    add("| workload | " + " | ".join(f"{v:g} ms: per kW / latency" for v in values)
        + " | published per kW / latency | implied overhead ms | per kW there |")
    add("|---|" + "---:|" * (len(values) + 3))
    summary = ratio_rows(base)
    for w in study.WORKLOADS:
        k = w["key"]
        if k not in summary:
            continue
        gpu = base[(k, w["gpu"])]
        pts = [(0.0, summary[k]["kw_tdp"], summary[k]["lat_best"])]
        for ms in s.overheads_ms:
            o = overheads.get((k, ms), {})
            pk, bl = o.get("peak"), o.get("best")
            if pk is None or bl is None or not len(pk) or not len(bl):
                pts.append((ms, float("nan"), float("nan")))
                continue
            pts.append((ms, float(pk.iloc[0]["tput_per_kw_tdp"]) / peak(gpu)["tput_per_kw_tdp"],
                        float(bl.iloc[0]["median_e2e_intvty"])
                        / best_latency(gpu)["median_e2e_intvty"]))
        pub = w["pub_lat"]
        implied, kw_there = f"none ({pts[0][2] / pub - 1:+.0%} at 0 ms)", "n/a"
        if pts[0][2] >= pub:
            implied = f"> {pts[-1][0]:g}"
            for (m0, k0, l0), (m1, k1, l1) in zip(pts, pts[1:]):
                if l0 >= pub >= l1:
                    x = (1 / pub - 1 / l0) / (1 / l1 - 1 / l0) if l1 != l0 else 0.0
                    implied = f"{m0 + x * (m1 - m0):.2f}"
                    kw_there = fmt(k0 + x * (k1 - k0))
                    break
        add(f"| {k} | " + " | ".join(f"{fmt(kw)} / {fmt(lat)}" for _, kw, lat in pts)
            + f" | {w['pub_kw']} / {pub} | {implied} | {kw_there} |")
    add("")


def low_concurrency_section(add, s, low):
    """The report's check of the GPU side at low concurrency (low_concurrency_check)."""
    rows, sim, tep8 = low
    add("## The GPU side at low concurrency: DeepSeek R1 with MTP")
    add("")
    add("The best-latency ratios read each system at N = 1, "
        + ("where the GPUs' fitted software time (fitted on rows at N = 4-256) is "
           "extrapolated down to one user" if study.calibration_source() else
           "where the GPUs' software overhead matters most (uncalibrated here)")
        + ". GPT-OSS 120B's low-concurrency GPU points (InferenceMAX's CI runs, GB200 NVL72 "
        "at N = 1-8 among them) are validation rows 1001-1038 (docs/validation.md, \"The "
        "latency end\") and are read against the GPT-OSS latency ratio above. The published "
        "low-concurrency GPU points of DeepSeek R1 in ../shared/validation are "
        "GB200 NVL72 serving it with MTP (Dynamo + TensorRT-LLM, disaggregated, 1K/1K). "
        "Here `gb200-nvl72` runs DeepSeek R1 with the study's MTP setting at the same lengths "
        f"and N, {s.long_prompts} x N requests, `--search` (co-located and the search's "
        "disaggregated "
        "splits), calibrated as in the headline; the best interactivity (1 / median TPOT, "
        "InferenceX's definition) over the mappings at each N against the published one. "
        "Beside it, one co-located TEP8 worker (`--tp 8 --ep 8` on 8 chips), the decode layout "
        "the published runs used: it separates the model's error on a validated layout from "
        "the search choosing a wider one.")
    add("")
    if sim is None or not len(sim):
        add("The run failed; see Limitations.")
        add("")
        return
    add("| id | N | published tok/s/user | simulated best tok/s/user | mapping | error | "
        "TEP8 tok/s/user | TEP8 error |")
    add("|---|---:|---:|---:|---|---:|---:|---:|")
    errs, tep8_errs = [], []
    for _, r in rows.iterrows():
        at = sim[sim["concurrency"] == int(r["concurrency"])]
        if not len(at):
            continue
        published = r["interactivity_tok_s_user"]
        best = at.loc[at["intvty"].idxmax()]
        err = best["intvty"] / published - 1
        errs.append(abs(err))
        t = tep8[tep8["concurrency"] == int(r["concurrency"])] if tep8 is not None else []
        if len(t):
            tep8_err = t["intvty"].iloc[0] / published - 1
            tep8_errs.append(abs(tep8_err))
            tep8_cells = f"{t['intvty'].iloc[0]:.1f} | {tep8_err:+.1%}"
        else:
            tep8_cells = "– | –"
        add(f"| {int(r['id'])} | {int(r['concurrency'])} | {published:.1f} | "
            f"{best['intvty']:.1f} | {best['mapping']} | {err:+.1%} | {tep8_cells} |")
    add("")
    if errs:
        add(f"Mean absolute error {sum(errs) / len(errs):.1%} for the searched layout"
            + (f", {sum(tep8_errs) / len(tep8_errs):.1%} for TEP8" if tep8_errs else "")
            + ". The published system ran Dynamo's tuned disaggregated pools and its own MTP "
            "acceptance; the simulated one the study's assumptions.")
        add("")


def published_and_cost_sections(add, base, summary, deployed=None):
    """Every published figure against the baseline (and the comparators as InferenceX deployed
    them: experiments.deployed_comparators), and cost per million tokens."""
    peaks, best_tpot, single, powers = {}, {}, {}, []
    for w in study.WORKLOADS:
        for system in ("jalapeno-128", w["gpu"]):
            f = base.get((w["key"], system))
            if f is not None:
                peaks[(w["key"], system)] = float(peak(f)["tput_per_chip"])
        jal = base.get((w["key"], "jalapeno-128"))
        if jal is None:
            continue
        best_tpot[w["key"]] = float(jal["intvty"].max())
        one = jal[jal["concurrency"] == 1]
        if len(one):
            single[w["key"]] = float(one["intvty"].max())
        powers.append(float(jal["avg_power_per_chip_w"].max()))
    deployed_peaks = {key: best_deployed(entries)[:2] for key, entries in (deployed or {}).items()}
    rows = published.check_published(study.WORKLOADS, summary, peaks, best_tpot, single,
                                     max(powers) if powers else None, deployed_peaks)
    add("## Every published figure, checked")
    add("")
    add("Each figure the publication states (../shared/REFERENCE.md; the GPU comparators as "
        "published beside the ratios) against the calibrated baseline above. Ratios must come "
        f"within +-{published.RATIO_TOLERANCE * 100:.0f} %, Jalapeño's absolute figures within "
        f"+-{published.ABSOLUTE_TOLERANCE * 100:.0f} %, the GPU comparators within "
        f"+-{published.GPU_TOLERANCE * 100:.0f} % (predicted, not fitted on: as searched, "
        "and as InferenceX deployed them, section \"The GPU comparators as InferenceX deployed "
        "them\"); bounds must hold. "
        "Jalapeño's per-chip peaks are implied by the publication (its per-kW ratio x the GPU's "
        "tok/s per kW x 0.7 kW); interactivity is InferenceX's 1/TPOT (the best of the sweep; "
        "for DeepSeek R1 the concurrency-1 point); package power is the highest simulated "
        "average of any Jalapeño point of the three sweeps.")
    add("")
    for line in published.markdown_lines(rows):
        add(line)
    add("")
    add("## Cost per million tokens")
    add("")
    add("InferenceX's formula, $/Mtok = TCO per chip-hour / (3600 x tok/s per chip / 1e6), at "
        "each side's peak throughput per chip (utilisation multiplies both sides alike and "
        "cancels in the comparison). The GPUs' TCO is InferenceX's hyperscaler figure "
        "(REFERENCE.md). Jalapeño has no published price, so the table gives the break-even "
        "chip-hour cost and capital at which it matches the GPU per token, and its $/Mtok with "
        "a capital per chip at a fraction of the GPU's (the capital InferenceX's TCO implies "
        f"once the all-in power is paid at ${cost.USD_PER_KWH}/kWh over "
        f"{cost.LIFETIME_YEARS:g} years, straight-line, no cost of money [ASSUMPTION]); its "
        f"all-in power is {cost.ALL_IN_OVER_TDP:.2f} x its 700 W TDP (GB200's all-in / TDP "
        "ratio [ASSUMPTION]). The publication's claim: about even with NVIDIA Vera Rubin on "
        "TCO per token (next section).")
    add("")
    pairs = [(w["label"], w["gpu"], w["gpu_label"], peaks[(w["key"], "jalapeno-128")],
              peaks[(w["key"], w["gpu"])]) for w in study.WORKLOADS
             if (w["key"], "jalapeno-128") in peaks and (w["key"], w["gpu"]) in peaks]
    for line in cost.markdown_lines(pairs):
        add(line)
    rubin_section(add, base, pairs)


def rubin_section(add, base, cost_pairs):
    """Jalapeño against Vera Rubin NVL72: per kW and per MW of output tokens, latency, and the
    Rubin GPU-hour cost at which it matches Jalapeño per token."""
    add(f"## {RUBIN_LABEL}: the third baseline")
    add("")
    add(f"`{RUBIN}` (arch/systems; the vr200 chip from the few published Rubin figures, each "
        "marked in the file, docs/systems.md) searched like the GPUs: their software, MTP where "
        "the workload's GPU has it, gb200-nvl72's knobs (no Rubin measurement is public). Per "
        f"MW: output tokens per second per MW of package TDP ({RUBIN_TDP_W:,} W for Rubin "
        "[SECONDARY], 700 W for Jalapeño), the publication's basis for 'ahead on output tokens "
        "per megawatt'. `Rubin $/GPU-hr at parity`: what a Rubin GPU-hour may cost for Rubin "
        "to match Jalapeño per token when Jalapeño's capital is half the GB200/GB300's "
        "(previous section); the publication reports TCO per token 'about even' with Rubin.")
    add("")
    add("| workload | Rubin peak tok/s/chip | Rubin tok/s/kW TDP | Rubin output tok/s/MW TDP | "
        "Jalapeño output tok/s/MW TDP | per kW Jalapeño / Rubin | per MW output Jalapeño / "
        "Rubin | latency (best) Rubin / Jalapeño | Rubin $/GPU-hr at parity |")
    add("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    by_label = {label: (gpu, jal_tput) for label, gpu, _, jal_tput, _ in cost_pairs}
    for w in study.WORKLOADS:
        rub, jal = base.get((w["key"], RUBIN)), base.get((w["key"], "jalapeno-128"))
        if rub is None or jal is None:
            add(f"| {w['label']} | no result | | | | | | | |")
            continue
        pr, pj = peak(rub), peak(jal)

        def output_per_mw(p):  # the output share of tok/s per kW of TDP, per MW
            return p["output_tput_per_chip"] / p["tput_per_chip"] * p["tput_per_kw_tdp"] * 1e3

        rub_mw, jal_mw = output_per_mw(pr), output_per_mw(pj)
        lat = best_latency(jal)["median_e2e_intvty"] / best_latency(rub)["median_e2e_intvty"]
        parity = "n/a"
        if w["label"] in by_label:
            gpu, jal_tput = by_label[w["label"]]
            jal_cost = cost.jalapeno_usd_per_mtok(0.5, gpu, jal_tput)
            parity = f"{jal_cost * 3600 * pr['tput_per_chip'] / 1e6:.2f}"
        add(f"| {w['label']} | {pr['tput_per_chip']:.0f} | {pr['tput_per_kw_tdp']:.0f} | "
            f"{rub_mw:,.0f} | {jal_mw:,.0f} | {pj['tput_per_kw_tdp'] / pr['tput_per_kw_tdp']:.2f} | "
            f"{jal_mw / rub_mw:.2f} | {lat:.2f} | {parity} |")
    add("")

