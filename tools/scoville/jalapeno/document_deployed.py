"""The Jalapeño study's check of the GPU comparators as InferenceX deployed them
(experiments.deployed_comparators): each recipe's simulated throughput per GPU against the
published peak and the study's searched baseline."""

from . import published, study
from .analysis import peak
from .study import MAX_CONCURRENCY


def count(v):
    """v as a whole number with thousands separators, '–' for None."""
    return "–" if v is None else f"{v:,.0f}"


def best_deployed(entries):
    """The best recipe of one comparator (experiments.deployed_comparators' entries: [(recipe,
    calibrated points, raw points)]): (best calibrated tok/s per GPU, best raw, the calibrated
    best's recipe name); None where no recipe ran."""
    best_cal, best_raw, best_name = None, None, None
    for recipe, cal, raw in entries:
        c = float(cal["tput_per_chip"].max()) if cal is not None and len(cal) else None
        r = float(raw["tput_per_chip"].max()) if raw is not None and len(raw) else None
        if c is not None and (best_cal is None or c > best_cal):
            best_cal, best_name = c, recipe[0]
        if r is not None and (best_raw is None or r > best_raw):
            best_raw = r
    return best_cal, best_raw, best_name


def within_sentence(summary, tolerance=published.GPU_TOLERANCE):
    """Which comparators each setting puts within the floor's tolerance of the published peak;
    summary: [(label, calibrated error, raw error)]."""
    def names(i):
        hits = [row[0] for row in summary if abs(row[i]) <= tolerance]
        return (f"{len(hits)} of {len(summary)}" + (f" ({', '.join(hits)})" if hits else ""))
    return (f"Within +-{tolerance:.0%} of the published peak: {names(1)} calibrated, "
            f"{names(2)} at raw peaks.")


def best_gpu_ratio(jalapeno_peak, searched_peak, deployed_peak, gpu):
    """The per-kW ratio (Jalapeño over the GPU, TDP-normalised) against the GPU at its best
    known configuration: the higher of its searched and as-deployed (calibrated) peaks per GPU.
    Returns (ratio, the GPU peak used, "searched" or "as deployed"); None without the peaks."""
    if jalapeno_peak is None or (searched_peak is None and deployed_peak is None):
        return None
    gpu_peak, source = max((v, name) for v, name in ((searched_peak, "searched"),
                                                     (deployed_peak, "as deployed"))
                           if v is not None)
    ratio = (jalapeno_peak / published.TDP_KW["jalapeno"]) / (gpu_peak / published.TDP_KW[gpu])
    return ratio, gpu_peak, source


def best_gpu_section(add, base, deployed):
    """The per-kW ratio with each GPU at its best known configuration. InferenceX's GPU peak is
    the best of its tuned recipes, so a search that misses a recipe's shape understates the GPU;
    Jalapeño, which has no recipe, keeps its searched peak."""
    rows = []
    for w in study.WORKLOADS:
        jal = base.get((w["key"], "jalapeno-128"))
        searched = base.get((w["key"], w["gpu"]))
        best = best_gpu_ratio(None if jal is None else float(peak(jal)["tput_per_chip"]),
                              None if searched is None else float(peak(searched)["tput_per_chip"]),
                              best_deployed(deployed.get(w["key"], []))[0], w["gpu"])
        if best is not None:
            rows.append((w, best))
    if not rows:
        return
    add("The per-kW ratio with the GPU at its best known configuration (the higher of its searched "
        "and as-deployed calibrated peaks; Jalapeño keeps its searched peak, having no recipe):")
    add("")
    add("| workload | per kW published | GPU peak used, tok/s/GPU | from | per kW simulated | "
        "error |")
    add("|---|---:|---:|---|---:|---:|")
    for w, (ratio, gpu_peak, source) in rows:
        published_ratio = published.PUB_KW_RATIO[w["key"]]
        add(f"| {w['label']} | {published_ratio:.2f} | {gpu_peak:,.0f} | {source} | "
            f"{ratio:.2f} | {ratio / published_ratio - 1:+.0%} |")
    add("")


def deployed_section(add, base, deployed, requests_per_client=study.LONG_PROMPTS):
    """The GPU comparators as InferenceX deployed them (experiments.deployed_comparators)
    against their published per-GPU peaks and the study's searched baselines."""
    if not deployed:
        return
    largest_n = max(r[1] for d in study.DEPLOYED_COMPARATORS.values() for r in d["recipes"])
    add("## The GPU comparators as InferenceX deployed them")
    add("")
    add("The headline's GPU baselines are searched (co-located mappings and a few prefill:decode "
        f"splits, N up to {MAX_CONCURRENCY}, the model files' precisions). InferenceX measured "
        "its published peaks on tuned Dynamo disaggregated recipes instead, at concurrencies up "
        f"to {largest_n:,}, with each checkpoint as its engine runs it (NVIDIA's NVFP4 "
        "releases of DeepSeek R1 and Kimi K2.5, W4A4 with attention projections in BF16; "
        "GPT-OSS 120B's MXFP4 release with MXFP8 expert inputs) and an FP8 KV cache. Here each "
        "comparator's throughput-end recipes (study.DEPLOYED_COMPARATORS: InferenceX's master configs, the "
        "recipe files they name) run as launched: the pools (DEP: attention data parallel on "
        "every GPU; TP: one attention group per worker; experts over each worker's GPUs), "
        "concurrency, decode sequences and prefill tokens per attention rank and MTP depth of "
        f"the recipe, {requests_per_client} x N requests, the checkpoint's precisions, the "
        "workers' stack (`dynamo-trtllm-disaggregated` for TensorRT-LLM, as `validate` maps "
        "InferenceX's Dynamo rows; `vllm` for vLLM), "
        "on the GPU system's own overlay and at raw peaks; InferenceX's peak is the best "
        "recipe, so the best one is compared. This separates the configuration the study "
        "searches from the model's error at the configuration that was measured.")
    add("")
    add("| workload | GPU | published tok/s/GPU | study baseline (searched) | as deployed, "
        "calibrated | error | as deployed, raw peaks | error | best recipe |")
    add("|---|---|---:|---:|---:|---:|---:|---:|---|")
    detail, summary = [], []
    for w in study.WORKLOADS:
        entries = deployed.get(w["key"])
        if not entries:
            continue
        published_tput = published.published_gpu_tok_s_per_chip(w["key"], w["gpu"])
        searched = base.get((w["key"], w["gpu"]))
        searched_cell = (f"{peak(searched)['tput_per_chip']:,.0f}" if searched is not None
                         else "–")
        best_cal, best_raw, best_name = best_deployed(entries)
        best_name = best_name or "–"
        for recipe, cal, raw in entries:
            name, concurrency, prefill, decode, mtp = recipe[:5]
            c = float(cal["tput_per_chip"].max()) if cal is not None and len(cal) else None
            r = float(raw["tput_per_chip"].max()) if raw is not None and len(raw) else None
            detail.append((w["label"], name, concurrency, prefill, decode, mtp, c, r, cal))
        def cell(v, published_tput=published_tput):
            return ("– | –" if v is None else
                    f"{v:,.0f} | {v / published_tput - 1:+.1%}")
        add(f"| {w['label']} | {w['gpu_label']} | {published_tput:,.0f} | {searched_cell} | "
            f"{cell(best_cal)} | {cell(best_raw)} | {best_name} |")
        if best_cal is not None and best_raw is not None:
            summary.append((w["label"], best_cal / published_tput - 1,
                            best_raw / published_tput - 1))
    add("")
    if summary:
        add("Run as deployed, the comparators come out "
            + "; ".join(f"{label} {cal:+.0%} calibrated and {raw:+.0%} at raw peaks"
                        for label, cal, raw in summary) + ". "
            + within_sentence(summary)
            + " The GPU overlays' compute fraction is anchored on one GB200 DeepSeek R1 "
            "prefill at 2,000-token inputs (tools/prefill-anchor; GB300 inherits it). No knob "
            "is fitted to these figures; they are the comparators' held-out check.")
        add("")
    best_gpu_section(add, base, deployed)
    add("Every recipe (tok/s per GPU of the recipe's GPUs; TTFT and TPOT medians of the "
        "calibrated run):")
    add("")
    add("| workload | recipe | N | prefill workers | decode workers | MTP | "
        "calibrated tok/s/GPU | raw tok/s/GPU | TTFT s | TPOT ms |")
    add("|---|---|---:|---|---|---:|---:|---:|---:|---:|")
    for label, name, concurrency, prefill, decode, mtp, c, r, cal in detail:
        ttft = tpot = "–"
        if cal is not None and len(cal):
            row = cal.loc[cal["tput_per_chip"].idxmax()]
            ttft, tpot = f"{row['median_ttft_s']:.2f}", f"{row['median_tpot_s'] * 1e3:.1f}"
        add(f"| {label} | {name} | {concurrency:,} | {study.pool_label(prefill)} | "
            f"{study.pool_label(decode)} | {mtp} | {count(c)} | {count(r)} | "
            f"{ttft} | {tpot} |")
    add("")


