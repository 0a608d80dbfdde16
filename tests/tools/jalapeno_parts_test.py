#!/usr/bin/python3
"""The Jalapeño study's pure parts (tools/scoville/jalapeno): the published figures and their
check, and the cost-per-token model, on made-up inputs whose answers are known by hand.
usage: jalapeno_parts_test.py SCOVILLE SOURCE_DIR WORKDIR (only SOURCE_DIR is used)
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(sys.argv[2], "tools"))
import pandas as pd  # noqa: E402

from scoville.jalapeno import cost, document_deployed, published, study, variants  # noqa: E402
from scoville.jalapeno.document_deployed import deployed_section  # noqa: E402

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def close(a, b, rel=1e-12):
    return abs(a - b) <= rel * max(abs(a), abs(b))


WORKLOADS = [
    {"key": "gptoss", "label": "GPT-OSS 120B", "gpu": "gb200-nvl72", "gpu_label": "GB200"},
    {"key": "dsr1", "label": "DeepSeek R1", "gpu": "gb300-nvl72", "gpu_label": "GB300"},
    {"key": "kimi", "label": "Kimi K2.5", "gpu": "gb300-nvl72", "gpu_label": "GB300"},
]

# --- published figures
check(close(published.implied_jalapeno_tok_s_per_chip("gptoss"), 1.9 * 44960 * 0.7),
      "implied GPT-OSS per-chip peak")
check(close(published.published_gpu_tok_s_per_chip("kimi", "gb300-nvl72"), 11862 * 1.4),
      "Kimi GB300 per GPU (16,607 published)")
summary = {"gptoss": {"kw_tdp": 1.9 * 1.14, "lat_best": 1.7 * 0.86},  # +14 % holds, -14 % holds
           "dsr1": {"kw_tdp": 1.7 * 1.16, "lat_best": 3.6},  # +16 % fails
           "kimi": {"kw_tdp": float("nan"), "lat_best": 3.4}}  # no result
implied = published.implied_jalapeno_tok_s_per_chip
peaks = {("gptoss", "jalapeno-128"): implied("gptoss") * 1.19,  # holds at +-20 %
         ("dsr1", "jalapeno-128"): implied("dsr1") * 0.79,  # fails
         ("gptoss", "gb200-nvl72"): 44960 * 1.2 * 0.9,  # -10 %: holds at +-15 %
         ("dsr1", "gb300-nvl72"): 11781 * 1.4 * 1.2}  # +20 %: fails
rows = published.check_published(WORKLOADS, summary, peaks, {"gptoss": 1400 * 1.25},
                                 {"dsr1": 700.0}, 550.0)
by = {r["figure"]: r for r in rows}
check(len(rows) == 6 + 3 + 1 + 1 + 1 + 3, f"{len(rows)} rows")


def verdict_of(prefix):
    found = [r for name, r in by.items() if name.startswith(prefix)]
    check(len(found) == 1, f"one row for {prefix!r}: {len(found)}")
    return published.verdict(found[0]) if found else None


check(verdict_of("GPT-OSS 120B: tok/s per kW") == "holds", "+14 % ratio holds")
check(verdict_of("GPT-OSS 120B: end-to-end") == "holds", "-14 % ratio holds")
check(verdict_of("DeepSeek R1: tok/s per kW") == "fails", "+16 % ratio fails")
check(verdict_of("Kimi K2.5: tok/s per kW") == "no result", "NaN ratio has no result")
check(verdict_of("GPT-OSS 120B: Jalapeño peak") == "holds", "+19 % absolute holds")
check(verdict_of("DeepSeek R1: Jalapeño peak") == "fails", "-21 % absolute fails")
check(verdict_of("Kimi K2.5: Jalapeño peak") == "no result", "missing peak")
check(verdict_of("GPT-OSS 120B: Jalapeño interactivity") == "fails", "+25 % interactivity")
check(verdict_of("DeepSeek R1: Jalapeño, one request") == "fails", "700 is not more than 700")
check(verdict_of("Jalapeño package power") == "holds", "550 W is at most 550 W")
check(verdict_of("GPT-OSS 120B: GB200 peak") == "holds", "GPU comparator -10 %")
check(verdict_of("DeepSeek R1: GB300 peak") == "fails", "GPU comparator +20 %")
lines = published.markdown_lines(rows)
check(len([x for x in lines if x.startswith("| ")]) == len(rows) + 1, "table rows")
check(any("7 of 12 published figures hold" in x for x in lines),
      f"summary line: {[x for x in lines if 'published figures' in x]}")
# the comparators as deployed: a second check of the same figure, counted apart
kimi_gpu = published.published_gpu_tok_s_per_chip("kimi", "gb300-nvl72")
rows = published.check_published(WORKLOADS, summary, peaks, {"gptoss": 1400 * 1.25},
                                 {"dsr1": 700.0}, 550.0, {"kimi": (kimi_gpu * 0.8, kimi_gpu * 1.1)})
deployed_rows = [r for r in rows if "as InferenceX deployed it" in r["figure"]]
check([published.verdict(r) for r in deployed_rows] == ["fails", "holds"],
      f"calibrated -20 % fails, raw +10 % holds: {deployed_rows}")
lines = published.markdown_lines(rows)
check(any("7 of 12 published figures hold" in x and "deployed them: 1 of 2 checks hold" in x
          for x in lines), f"deployed checks apart: {[x for x in lines if 'figures' in x]}")

# --- cost per token
check(close(cost.usd_per_mtok(3.6, 1e6 / 3600.0 * 1000), 3.6 / 1000), "$/Mtok formula")
gpu, jal, g = "gb200-nvl72", 60000.0, 50000.0
be = cost.break_even_chip_hour_usd(gpu, jal, g)
check(close(cost.usd_per_mtok(be, jal), cost.usd_per_mtok(2.21, g)), "break-even chip-hour")
# At the break-even capital, Jalapeño's built-up cost per token equals the GPU's.
fraction = cost.break_even_capital_usd(gpu, jal, g) / cost.implied_gpu_capital_usd(gpu)
check(close(cost.jalapeno_usd_per_mtok(fraction, gpu, jal), cost.usd_per_mtok(2.21, g), 1e-9),
      "break-even capital gives equal $/Mtok")
# The implied GPU capital pays back InferenceX's TCO with its power.
cap = cost.implied_gpu_capital_usd(gpu)
check(close(cost.chip_hour_usd(cap, 2.10), 2.21, 1e-12), "GPU capital + power = TCO")
check(cost.jalapeno_usd_per_mtok(0.25, gpu, jal) < cost.jalapeno_usd_per_mtok(0.5, gpu, jal),
      "less capital, less cost")
lines = cost.markdown_lines([("GPT-OSS 120B", gpu, "GB200", jal, g)])
check(sum(1 for x in lines if x.startswith("| GB200 | GPT-OSS 120B |")) == 1, "cost row")
check(sum(1 for x in lines if x.startswith("| electricity") or x.startswith("| lifetime")
          or x.startswith("| Jalapeño all-in")) == 3, "assumption sweep rows")
check(all(not math.isnan(v) for v in (be, cap)), "finite")

# --- the published latency pair: n / (TTFT + (n - 1) TPOT)
pair = published.latency_pair(2.0, 100.0, 0.5, 1001.0, absolute=1000.0)
check(close(pair["jal_e2e_needed"], 2.0 * 0.85 * 100.0), "the ratio's -15 % E2E ask")
check(close(pair["tpot_rate_needed"], 1000.0 / (1001.0 / 170.0 - 0.5)), "1/TPOT at the TTFT")
# ratio at most +15 % (E2E <= 230) with 1/TPOT >= 800: TTFT >= 1001/230 - 1000/800
check(close(pair["ttft_needed_s"], 1001.0 / 230.0 - 1000.0 / 800.0), "least TTFT for both")
# at TTFT 0.5 s and TPOT 1 ms, E2E = 1001 / 1.5; the GPU at half of it
check(close(pair["gpu_implied"], 1001.0 / 1.5 / 2.0), "GPU E2E both figures imply")
lower = published.latency_pair(2.0, 100.0, 6.0, 1001.0, absolute=1000.0, at_least=True)
check(lower["ttft_needed_s"] is None and lower["gpu_implied"] is None,
      "a lower bound pairs no TTFT")
check(lower["tpot_rate_needed"] == math.inf, "a TTFT alone longer than the ask: no TPOT serves")

# --- the GPU measured at one user: E2E interactivity from TTFT and TPOT, and the pair against it
check(close(published.e2e_interactivity(0.1, 0.002, 1001.0), 1001.0 / (0.1 + 1000 * 0.002)),
      "E2E interactivity n / (TTFT + (n - 1) TPOT)")
from scoville.jalapeno import document_consistency  # noqa: E402
point = published.MEASURED_GPU_ONE_USER["gptoss"]
jal = {"median_ttft_s": 0.02, "median_e2e_intvty": 1500.0}
m = document_consistency.measured_pair("gptoss", jal, 1400.0, False)
n = document_consistency.MEAN_OUTPUT_TOKENS
gpu = n / (point["ttft_s"] + (n - 1) * point["tpot_s"])
check(close(m["gpu_e2e"], gpu), "the measured GPU's E2E interactivity")
check(close(m["sim_ratio"], 1500.0 / gpu), "Jalapeño's simulated ratio against the measured GPU")
check(close(m["pair"]["jal_e2e_needed"], 1.7 * 0.85 * gpu), "the ratio's ask against it")
check(document_consistency.measured_pair("kimi", jal, None, False) is None,
      "no measured point: no pair")

# --- the GPU comparators as deployed: a recipe's pools, and the best recipe against the peak
work = os.path.join(sys.argv[3], "jalapeno-parts")
with open(variants.deployed_mapping(work, (6, 4, study.DEP), (1, 16, study.DEP), 384)) as f:
    text = f.read()
check("prefill: {chips: 24, tp: 24, ep: 4, attn_dp: 24}" in text, "prefill: 6 workers x DEP4")
check("decode: {chips: 16, tp: 16, ep: 16, attn_dp: 16}" in text, "decode: one DEP16 worker")
# GPT-OSS's P 2xTP1 D 1xTP4: two single-GPU workers (two attention groups, every expert on
# each: expert replicas), one TP4 worker (one attention group, EP4 as the sweeps set it)
with open(variants.deployed_mapping(work, (2, 1, study.TP), (1, 4, study.TP), 128)) as f:
    text = f.read()
check("prefill: {chips: 2, tp: 2, ep: 1, attn_dp: 2}" in text, f"prefill: 2 x TP1 {text}")
check("decode: {chips: 4, tp: 4, ep: 4, attn_dp: 1}" in text, f"decode: 1 x TP4 {text}")
check(study.attention_ranks((2, 1, study.TP)) == 2 and study.attention_ranks((1, 4, study.TP)) == 1
      and study.attention_ranks((1, 16, study.DEP)) == 16, "attention ranks per pool")
check(study.pool_label((8, 4, study.DEP)) == "8 x DEP4" and study.pool_label((1, 2, study.TP))
      == "1 x TP2", "pool labels as InferenceX writes them")
try:
    variants.deployed_mapping(work, (6, 4, study.DEP), (1, 24, study.DEP), 256)
    check(False, "256 experts over 24 GPUs refused")
except SystemExit as e:
    check("256 experts" in str(e), f"refusal names the experts: {e}")
with open(variants.deployed_model(work, "kimi", "kimi-k2.5", mtp=False)) as f:
    model_text = f.read()
for key, value in study.NVFP4_PRECISION:
    check(f"  {key.split('.')[-1]}: {value}  # [SPEC] nvidia/Kimi-K2.5-NVFP4" in model_text,
          f"NVFP4 variant sets {key}")
with open(variants.deployed_model(work, "dsr1", "deepseek-r1", mtp=False)) as f:
    model_text = f.read()
check("  weights: bf16  # [SPEC] nvidia/DeepSeek-R1-0528-NVFP4-v2" in model_text,
      "DeepSeek R1's NVFP4 release: attention projections in BF16")
check("  activations: fp8" in model_text, "DeepSeek R1 keeps FP8 activations (FP8 KV attention)")
with open(variants.deployed_model(work, "gptoss", "gpt-oss-120b", mtp=False)) as f:
    model_text = f.read()
for key, value in study.MXFP8_INPUTS_PRECISION:
    check(f"  {key.split('.')[-1]}: {value}  # [SPEC] openai/gpt-oss-120b" in model_text,
          f"GPT-OSS's TensorRT-LLM variant sets {key}: {model_text[-600:]}")
check("experts: mxfp4" in model_text, "GPT-OSS keeps its MXFP4 experts")


check(study.deployed_software("vllm disagg-gb300-8p1d-dep4-dep24") == "vllm", "vLLM workers")
check(study.deployed_software("trt ctx6dep4_gen1dep16_batch128_eplb0_mtp0")
      == "dynamo-trtllm-disaggregated", "TensorRT-LLM workers under Dynamo")
try:
    study.deployed_software("sglang max_tpt")
    check(False, "an engine with no stack is refused")
except SystemExit as e:
    check("sglang max_tpt" in str(e), f"the refusal names the recipe: {e}")


def points(tput):
    return pd.DataFrame({"tput_per_chip": [tput], "median_ttft_s": [1.0],
                         "median_tpot_s": [0.02], "tput_per_kw_tdp": [tput / 1.4]})


saved = study.WORKLOADS
study.WORKLOADS = [w for w in WORKLOADS if w["key"] == "kimi"]
recipe_a = ("trt a", 2253, (6, 4, study.DEP), (1, 16, study.DEP), 0, 128, 16384)
recipe_b = ("vllm b", 15360, (8, 4, study.DEP), (1, 24, study.DEP), 0, 512, 16384)
published_kimi = published.published_gpu_tok_s_per_chip("kimi", "gb300-nvl72")
out = []
deployed_section(out.append, {("kimi", "gb300-nvl72"): points(9000.0),
                              ("kimi", "jalapeno-128"): points(7000.0)},
                 {"kimi": [(recipe_a, points(published_kimi * 0.8), points(published_kimi)),
                           (recipe_b, points(published_kimi * 0.9), None)]})
study.WORKLOADS = saved
head = [x for x in out if x.startswith("| Kimi K2.5 | GB300 |")]
check(len(head) == 1, f"one comparator row: {head}")
check(head and "| -10.0% |" in head[0] and "| vllm b |" in head[0],
      f"the best calibrated recipe is compared: {head}")
check(head and "| +0.0% |" in head[0], f"the best raw recipe: {head}")
check(sum(1 for x in out if x.startswith("| Kimi K2.5 | ")) == 4,
      "the comparator row, the best-GPU ratio row and two recipe rows")
check(any("| 6 x DEP4 | 1 x DEP16 |" in x for x in out), "recipe rows name their pools")
check(any("Within +-15% of the published peak: 1 of 1 (Kimi K2.5) calibrated, 1 of 1 (Kimi "
          "K2.5) at raw" in x for x in out), f"the floor's count per setting: {out}")
# the per-kW ratio against the GPU at its best: the higher of searched and deployed
ratio, used, source = document_deployed.best_gpu_ratio(7000.0, 9000.0, 14000.0, "gb300-nvl72")
check(source == "as deployed" and used == 14000.0, f"the deployed peak is higher: {source}")
check(close(ratio, (7000.0 / 0.7) / (14000.0 / 1.4)), f"TDP-normalised ratio: {ratio}")
check(document_deployed.best_gpu_ratio(7000.0, 9000.0, None, "gb300-nvl72")[2] == "searched",
      "no deployed run: the searched peak")
check(document_deployed.best_gpu_ratio(None, 9000.0, 1.0, "gb300-nvl72") is None,
      "no Jalapeño peak: no ratio")
check(any(x.startswith("| Kimi K2.5 | 1.50 |") for x in out), f"best-GPU ratio row: {out}")
sentence = document_deployed.within_sentence([("A", 0.149, -0.2), ("B", -0.16, 0.15)])
check(sentence == "Within +-15% of the published peak: 1 of 2 (A) calibrated, 1 of 2 (B) at raw "
      "peaks.", f"within the floor, bounds included: {sentence}")
check("0 of 1 calibrated" in document_deployed.within_sentence([("A", 0.3, 0.3)]),
      "none within: no names")

if failures:
    print("FAILED:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("jalapeno parts: all checks passed")
