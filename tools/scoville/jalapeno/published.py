"""Every figure the Jalapeño publication states, and the check of each against the study's runs.

Sources: ../shared/REFERENCE.md, "Jalapeño: what is public" [VENDOR] (ratios, TDPs, interactivity,
measured package power); the GPU comparators' tokens/s per kW of package TDP are the published
baselines the ratios were taken against, as issue 27 quotes them from the seed articles.
A figure "holds" when the simulated value is within its tolerance of the published one (ratios
+-15 %, absolute figures +-20 %, the study's floors) or, for a bound ("more than", "at most"),
when the simulated value satisfies the bound.
"""
import math

RATIO_TOLERANCE = 0.15  # issue 27: all six published ratios within +-15 %
ABSOLUTE_TOLERANCE = 0.20  # issue 27: Jalapeño's absolute peaks and interactivity within +-20 %
GPU_TOLERANCE = 0.15  # issue 27: the GPU comparators within 15 %, predicted without fitting

# Package TDP, the published normaliser (REFERENCE.md [VENDOR]).
TDP_KW = {"jalapeno": 0.700, "gb200-nvl72": 1.200, "gb300-nvl72": 1.400}
# The GPU baselines' peak tokens/s per kW of package TDP as published beside the ratios.
GPU_TOK_S_PER_KW = {"gptoss": 44960.0, "dsr1": 11781.0, "kimi": 11862.0}
PUB_KW_RATIO = {"gptoss": 1.9, "dsr1": 1.7, "kimi": 1.5}
PUB_LATENCY_RATIO = {"gptoss": 1.7, "dsr1": 3.6, "kimi": 3.4}
PUB_GPTOSS_TOK_S_USER = 1400.0  # "about 1,400 tok/s per user on GPT-OSS"
PUB_DSR1_SINGLE_REQUEST_TOK_S = 700.0  # "more than 700 tok/s for a single DeepSeek R1 request"
PUB_MEASURED_PACKAGE_W = 550.0  # "at or below 550 W on these workloads"

# The GPU side of a latency ratio, measured at one user where a measurement exists: medians of
# TTFT and TPOT of InferenceMAX's own runs (the agg_bmk.json artifacts of InferenceMAX/InferenceMAX
# CI, archived in github.com/gminneci/mantile commit 1d3c259c,
# reconcile/sources/inferencemax/raw/run_<id>/agg_bmk.json). [MEAS] GPT-OSS 120B on GB200 NVL72,
# 8K/1K, concurrency 1, Dynamo + TensorRT-LLM (tensorrtllm-runtime 0.7.0.post2), one TP1 prefill
# worker and one TP8 decode worker, no speculative decoding: run 20786863188 (runs 20737128080,
# 20742072203 and 20764588467 within 1 %).
MEASURED_GPU_ONE_USER = {
    "gptoss": {"system": "gb200-nvl72", "run": "20786863188", "ttft_s": 0.1049,
               "tpot_s": 0.001868,
               "deployment": "Dynamo + TensorRT-LLM, TP1 prefill + TP8 decode worker"},
}


def e2e_interactivity(ttft_s, tpot_s, output_tokens):
    """InferenceX's E2E interactivity of a request of n output tokens: n / (TTFT + (n - 1) TPOT)."""
    return output_tokens / (ttft_s + (output_tokens - 1) * tpot_s)


def implied_jalapeno_tok_s_per_chip(key):
    """Jalapeño's per-chip peak the published figures imply: ratio x GPU tok/s/kW x 0.7 kW."""
    return PUB_KW_RATIO[key] * GPU_TOK_S_PER_KW[key] * TDP_KW["jalapeno"]


def published_gpu_tok_s_per_chip(key, gpu):
    return GPU_TOK_S_PER_KW[key] * TDP_KW[gpu]


def _row(figure, published, simulated, kind, tolerance=None, unit=""):
    """kind: 'close' (within tolerance), 'above' (simulated > published), 'at_most'."""
    if simulated is None or (isinstance(simulated, float) and math.isnan(simulated)):
        holds, error = None, float("nan")
    else:
        error = simulated / published - 1.0
        if kind == "close":
            holds = abs(error) <= tolerance
        elif kind == "above":
            holds = simulated > published
        else:
            holds = simulated <= published
    return {"figure": figure, "published": published, "simulated": simulated, "kind": kind,
            "tolerance": tolerance, "error": error, "holds": holds, "unit": unit}


def check_published(workloads, summary, peaks, best_tpot, single_request, max_power_w,
                    deployed_peaks=None):
    """One row per published figure.

    workloads: the study's WORKLOADS (key, label, gpu, gpu_label); summary: key -> the study's
    ratios (kw_tdp, lat_best); peaks: (key, system) -> peak tok/s per chip; best_tpot: key ->
    Jalapeño's best interactivity 1/TPOT (tok/s/user) anywhere on its sweep; single_request:
    key -> Jalapeño's interactivity at concurrency 1; max_power_w: the highest simulated average
    package power of any Jalapeño point of the three workloads (None when unknown);
    deployed_peaks: key -> (calibrated, raw) best tok/s per GPU of the comparator's recipes as
    InferenceX deployed them (experiments.deployed_comparators), each checked as the searched
    comparator is."""
    rows = []
    for w in workloads:
        k, r = w["key"], summary.get(w["key"]) or {}
        rows.append(_row(f"{w['label']}: tok/s per kW, Jalapeño / {w['gpu_label']}",
                         PUB_KW_RATIO[k], r.get("kw_tdp"), "close", RATIO_TOLERANCE, "x"))
        rows.append(_row(f"{w['label']}: end-to-end latency, {w['gpu_label']} / Jalapeño",
                         PUB_LATENCY_RATIO[k], r.get("lat_best"), "close", RATIO_TOLERANCE, "x"))
    for w in workloads:
        k = w["key"]
        rows.append(_row(f"{w['label']}: Jalapeño peak tok/s per chip (implied: ratio x GPU "
                         "tok/s/kW x 0.7 kW)", implied_jalapeno_tok_s_per_chip(k),
                         peaks.get((k, "jalapeno-128")), "close", ABSOLUTE_TOLERANCE, "tok/s"))
    rows.append(_row("GPT-OSS 120B: Jalapeño interactivity (1/TPOT), best", PUB_GPTOSS_TOK_S_USER,
                     best_tpot.get("gptoss"), "close", ABSOLUTE_TOLERANCE, "tok/s/user"))
    rows.append(_row("DeepSeek R1: Jalapeño, one request alone (concurrency 1), more than",
                     PUB_DSR1_SINGLE_REQUEST_TOK_S, single_request.get("dsr1"), "above", None,
                     "tok/s/user"))
    rows.append(_row("Jalapeño package power on these workloads, at most (measured)",
                     PUB_MEASURED_PACKAGE_W, max_power_w, "at_most", None, "W"))
    for w in workloads:
        k, gpu = w["key"], w["gpu"]
        sim = peaks.get((k, gpu))
        rows.append(_row(f"{w['label']}: {w['gpu_label']} peak tok/s per kW TDP (comparator)",
                         GPU_TOK_S_PER_KW[k], None if sim is None else sim / TDP_KW[gpu],
                         "close", GPU_TOLERANCE, "tok/s/kW"))
        for setting, value in zip(("calibrated", "chip model, no calibration"),
                                  (deployed_peaks or {}).get(k, ())):
            row = _row(f"{w['label']}: {w['gpu_label']} peak tok/s per kW TDP (comparator as "
                       f"InferenceX deployed it, {setting})", GPU_TOK_S_PER_KW[k],
                       None if value is None else value / TDP_KW[gpu], "close", GPU_TOLERANCE,
                       "tok/s/kW")
            row["deployed"] = True  # a second check of the comparator's figure, not a new one
            rows.append(row)
    return rows


def latency_pair(ratio, gpu_e2e, jal_ttft_s, output_tokens, absolute=None, at_least=False):
    """What one workload's published latency ratio and Jalapeño's published interactivity
    (1 / TPOT, tok/s/user) ask of each other, given the GPU's best end-to-end interactivity
    `gpu_e2e` (output tokens / E2E latency) and Jalapeño's TTFT at its best-latency point.
    E2E interactivity = n / (TTFT + (n - 1) TPOT) for a request of n output tokens.
    Returns {"ttft_needed_s": the least TTFT at which both figures hold within their tolerances
    (ratio at most +15 %, interactivity at least -20 %; None when `at_least` or no absolute),
    "gpu_implied": the GPU's E2E interactivity both published figures imply at Jalapeño's
    TTFT (None without an absolute), "jal_e2e_needed": the least Jalapeño E2E interactivity
    the ratio asks (ratio -15 %), "tpot_rate_needed": the 1 / TPOT that takes at Jalapeño's
    TTFT (inf when the TTFT alone is too long)}."""
    n = output_tokens
    out = {"ttft_needed_s": None, "gpu_implied": None}
    need = ratio * (1 - RATIO_TOLERANCE) * gpu_e2e
    out["jal_e2e_needed"] = need
    decode_s = n / need - jal_ttft_s
    out["tpot_rate_needed"] = (n - 1) / decode_s if decode_s > 0 else math.inf
    if absolute is not None and not at_least:
        slowest_tpot = 1.0 / (absolute * (1 - ABSOLUTE_TOLERANCE))
        out["ttft_needed_s"] = (n / (ratio * (1 + RATIO_TOLERANCE) * gpu_e2e)
                                - (n - 1) * slowest_tpot)
        out["gpu_implied"] = n / (jal_ttft_s + (n - 1) / absolute) / ratio
    return out


def verdict(row):
    if row["holds"] is None:
        return "no result"
    return "holds" if row["holds"] else "fails"


def bound_text(row):
    if row["kind"] == "above":
        return "more than"
    if row["kind"] == "at_most":
        return "at most"
    return f"+-{row['tolerance'] * 100:.0f} %"


def _value(v, unit):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if unit == "x":
        return f"{v:.2f}"
    return f"{v:,.0f}"


def markdown_lines(rows):
    """The table of every published figure against the study's value."""
    figures = [r for r in rows if not r.get("deployed")]
    held = sum(1 for r in figures if r["holds"])
    known = sum(1 for r in figures if r["holds"] is not None)
    deployed = [r for r in rows if r.get("deployed") and r["holds"] is not None]
    out = ["| published figure | published | simulated | unit | error | bound | verdict |",
           "|---|---:|---:|---|---:|---|---|"]
    for r in rows:
        err = "n/a" if math.isnan(r["error"]) else f"{r['error'] * 100:+.0f} %"
        out.append(f"| {r['figure']} | {_value(r['published'], r['unit'])} | "
                   f"{_value(r['simulated'], r['unit'])} | {r['unit']} | {err} | "
                   f"{bound_text(r)} | {verdict(r)} |")
    out.append("")
    out.append(f"{held} of {known} published figures hold at the study's baseline "
               f"({len(figures) - known} without a result)."
               + (f" The comparators as InferenceX deployed them: "
                  f"{sum(1 for r in deployed if r['holds'])} of {len(deployed)} checks hold."
                  if deployed else ""))
    return out
