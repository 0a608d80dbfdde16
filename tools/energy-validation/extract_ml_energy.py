#!/usr/bin/python3
"""Writes workloads/measurements/energy/ml-energy-v3.csv from a checkout of github.com/ml-energy/leaderboard
(the ML.ENERGY Leaderboard v3.0 data: public/data/models/<org>__<model>__<task>.json).

usage: tools/energy-validation/extract_ml_energy.py LEADERBOARD_DIR COMMIT [--fit] > FILE.csv

The rows kept are fixed before any prediction was looked at: every (model, GPU, GPU count)
configuration of a model in workloads/models at max_num_seqs 8, 64 and 256 (low, middle and high
batch; 8 is the smallest the benchmark ran, 256 the largest every configuration below reached
except the 64-sequence cap of one H100 GPT-OSS 120B run): ml-energy-v3.csv, the validated rows.
With --fit, the same configurations at max_num_seqs 16, 32 and 128 instead (ids F1...):
ml-energy-v3-fit.csv, the rows the chips' active power is fitted on (tools/energy-validation/
fit_active_power.py) and the LMArena prompt length (fit_prompt_length.py), none of them a
validated row. Measured values are copied as published; the input length is not published: an
[ASSUMPTION] for gpqa, fitted on the fit rows for lm-arena-chat (INPUT_TOKENS below; the README
next to the CSV). Python 3 standard library only.
"""
import csv
import json
import os
import sys

# leaderboard file -> (workloads/models name, precision override)
MODELS = {
    "meta-llama__Llama-3.1-8B-Instruct__lm-arena-chat.json": ("llama-3.1-8b", ""),
    "meta-llama__Llama-3.1-70B-Instruct__lm-arena-chat.json": ("llama-3.1-70b", ""),
    "meta-llama__Llama-3.1-405B-Instruct-FP8__lm-arena-chat.json":
        ("llama-3.1-405b", "weights=fp8,activations=fp8"),
    "openai__gpt-oss-20b__gpqa.json": ("gpt-oss-20b", ""),
    "openai__gpt-oss-120b__gpqa.json": ("gpt-oss-120b", ""),
}
SYSTEMS = {"H100": "h100-hgx8", "B200": "b200-hgx8"}
BATCHES = (8, 64, 256)
FIT_BATCHES = (16, 32, 128)
# Mean prompt tokens per request, by task: the leaderboard publishes output lengths only.
INPUT_TOKENS = {
    # [ASSUMPTION] a GPQA Diamond question with its four choices and the benchmark's one-line
    # instruction (ml-energy/benchmark GPQADataset.sample) is a few hundred tokens; with outputs
    # of 1,500-2,100 tokens the rows barely move with it (docs/validation.md, "Prompt length").
    "gpqa": 256,
    # [FITTED] on the rows not validated on (ml-energy-v3-fit.csv) by
    # tools/energy-validation/fit_prompt_length.py: 896 tokens with each run's own request count
    # and output-length histogram (objective within 2.5 % of its least over 768-960; 960 with
    # outputs in a narrow uniform range, 896 before the predictions covered the benchmark's
    # steady-state window). Each request is one conversation turn whose prompt concatenates the earlier
    # prompts and responses (ml-energy/benchmark LMArenaHumanPreferenceDataset.sample), so the
    # mean is far above one message's: with LMSYS-Chat-1M's 2.0 turns per conversation, 69.5
    # tokens per prompt and 214.5 per response (Zheng et al., arXiv 2309.11998, Table 1), and
    # responses as long as these rows measure (avg_output_len 345-405 tokens), a turn's prompt
    # averages about two prompts and one response: several hundred tokens.
    "lm-arena-chat": 896,
}
COLUMNS = ["id", "source", "covers", "gpu", "system", "chips", "tp", "ep", "model", "precision",
           "task", "max_num_seqs", "avg_batch_size", "isl", "avg_output_len", "output_tok_s",
           "avg_power_w", "energy_per_token_j", "median_itl_ms", "framework", "sampling",
           "num_requests", "output_length_bins"]
# The serving stack every v3.0 run used (README: vLLM 0.11.1); validate maps it to arch/software
# through workloads/measurements/framework-stacks.csv.
FRAMEWORK = "vLLM 0.11.1"
# How every request was sampled: the benchmark client's defaults, top_p 0.95 and temperature 0.8
# (ml-energy/benchmark, mlenergy/llm/benchmark.py at af91002, 2025-12-13; the workloads' configs
# set neither), so each request asks for top-p.
SAMPLING = "top-p"


def length_bins(histogram):
    """The published output-length histogram as 'LO-HI:COUNT' bins (empty bins left out) and its
    requests in all: the run's N (every request of a run is counted once)."""
    edges, counts = histogram["bins"], histogram["counts"]
    if len(edges) != len(counts) + 1:
        sys.exit("output_length_distribution: %d edges for %d counts" % (len(edges), len(counts)))
    cells = ["%s-%s:%d" % (round(edges[i], 2), round(edges[i + 1], 2), n)
             for i, n in enumerate(counts) if n > 0]
    return " ".join(cells), sum(counts)


def rows(directory, commit, batches=BATCHES, prefix="E"):
    out = []
    for name, (model, precision) in MODELS.items():
        with open(os.path.join(directory, "public", "data", "models", name)) as f:
            data = json.load(f)
        for c in data["configurations"]:
            if c["max_num_seqs"] not in batches or c["gpu_model"] not in SYSTEMS:
                continue
            par = c["parallelization"]
            bins, requests = length_bins(c["output_length_distribution"])
            out.append({
                "source": "ML.ENERGY Leaderboard v3.0 github.com/ml-energy/leaderboard/blob/%s/"
                          "public/data/models/%s" % (commit, name),
                "covers": "gpu",
                "gpu": c["gpu_model"], "system": SYSTEMS[c["gpu_model"]],
                "chips": c["num_gpus"], "tp": par["tensor_parallel"],
                "ep": par["expert_parallel"], "model": model, "precision": precision,
                "task": data["task"], "max_num_seqs": c["max_num_seqs"],
                "avg_batch_size": "%.2f" % c["avg_batch_size"], "isl": INPUT_TOKENS[data["task"]],
                "avg_output_len": "%.1f" % c["avg_output_len"],
                "output_tok_s": "%.1f" % c["output_throughput_tokens_per_sec"],
                "avg_power_w": "%.1f" % c["avg_power_watts"],
                "energy_per_token_j": "%.5f" % c["energy_per_token_joules"],
                "median_itl_ms": "%.2f" % c["median_itl_ms"], "framework": FRAMEWORK,
                "sampling": SAMPLING, "num_requests": requests, "output_length_bins": bins,
            })
    out.sort(key=lambda r: (r["model"], r["gpu"], r["chips"], r["max_num_seqs"]))
    for i, r in enumerate(out, 1):
        r["id"] = "%s%d" % (prefix, i)
    return out


def main():
    args = sys.argv[1:]
    fit = "--fit" in args
    args = [a for a in args if a != "--fit"]
    if len(args) != 2:
        sys.exit(__doc__)
    writer = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for r in rows(args[0], args[1], FIT_BATCHES if fit else BATCHES, "F" if fit else "E"):
        writer.writerow(r)


if __name__ == "__main__":
    main()
