"""The Jalapeño study's definition: the published comparison (workloads, systems, baselines),
the software, MTP and calibration settings each side runs with, the inverse grid's axes, and
how large a study is (Settings: --quick, the default, --full).

Two values are set once per invocation, before any run (configure): the fidelity every run is
at and the workloads studied. Other modules read them as study.FIDELITY and study.WORKLOADS at
call time.
"""

import os
import re

# The repository (tools/scoville/jalapeno/study.py is four levels below it).
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


ISL, OSL = 8192, 1024

# The published comparison (../shared/REFERENCE.md, "Jalapeño: what is public" [VENDOR]).
ALL_WORKLOADS = [
    {"key": "gptoss", "model": "gpt-oss-120b", "label": "GPT-OSS 120B", "gpu": "gb200-nvl72",
     "gpu_label": "GB200 NVL72", "pub_kw": 1.9, "pub_lat": 1.7, "gpu_mtp": False, "wide": (256, 128)},
    {"key": "dsr1", "model": "deepseek-r1", "label": "DeepSeek R1 (MXFP4)", "gpu": "gb300-nvl72",
     "gpu_label": "GB300 NVL72", "pub_kw": 1.7, "pub_lat": 3.6, "gpu_mtp": True, "wide": (256, 256)},
    {"key": "kimi", "model": "kimi-k2.5", "label": "Kimi K2.5 (MXFP4)", "gpu": "gb300-nvl72",
     "gpu_label": "GB300 NVL72", "pub_kw": 1.5, "pub_lat": 3.4, "gpu_mtp": False, "wide": (384, 384)},
]
SYSTEM_CHIPS = {"jalapeno-128": 128, "jalapeno-2048": 2048, "gb200-nvl72": 72,
                "gb300-nvl72": 72, "vr200-nvl72": 72}
# The third baseline the publication compares with (tokens per MW, TCO per token): NVIDIA Vera
# Rubin NVL72 (NVL144 by die count), run as the GPUs are (software, MTP where the workload's GPU
# has it, gb200-nvl72's knobs through its overlay); package TDP 2,300 W [SECONDARY] (REFERENCE.md).
RUBIN, RUBIN_LABEL, RUBIN_TDP_W = "vr200-nvl72", "Vera Rubin NVL72", 2300
# The GPU comparators as InferenceX deployed them: the throughput end of each published 8K/1K
# sweep, Dynamo disaggregated recipes from SemiAnalysisAI/InferenceX at commit 843c6254f
# (configs/deprecated/nvidia-kimik2.5-8k1k-master.yaml, entries kimik2.5-fp4-gb300-dynamo-trt
# and kimik2.5-fp4-gb300-dynamo-vllm; configs/nvidia-master.yaml, dsr1-fp4-gb300-dynamo-trt;
# configs/deprecated/nvidia-gptoss-master.yaml, gptoss-fp4-gb200-dynamo-trt, its 8K/1K
# search space, named after its own comments "P: 2xTP1 D: 1xDEP2"). Every recipe is a prefill
# pool and a decode pool, each `workers` x `gpus` with or without attention data parallelism
# (DEP: attention DP on every GPU; TP: one attention group per worker), experts over each
# worker's GPUs (ep = gpus: the Dynamo TensorRT-LLM sweeps set moe_expert_parallel_size to the
# worker's tp, ai-dynamo/dynamo components/backends/trtllm/performance_sweeps/scripts/
# gen_yaml.py). InferenceX's peak is the best tok/s per GPU of all its recipes, so the check
# takes the best one; a recipe listing several concurrencies runs at its largest (the
# throughput end). Fields: recipe, concurrency, prefill (workers, gpus, attention DP), decode
# (workers, gpus, attention DP), MTP depth, decode sequences per attention-DP rank ([SPEC]
# TensorRT-LLM: the name's batchN or DECODE_MAX_BATCH_SIZE, per rank with attention DP and
# per worker without; vLLM: the recipe's max-num-seqs), prefill tokens per attention-DP rank
# ([SPEC] vLLM recipes' max-num-batched-tokens 16384, GPT-OSS's PREFILL_MAX_NUM_TOKENS 20000;
# [ASSUMPTION] 16384 for the TensorRT-LLM DeepSeek and Kimi recipes, as their GB200 DeepSeek
# recipes in workloads/deployments). Each comparator's checkpoint as its engine runs it
# (`precision`): NVIDIA's ModelOpt NVFP4 releases of DeepSeek R1 and Kimi K2.5 quantize every
# linear layer but self-attention and the LM head, weights and inputs (W4A4; their
# hf_quant_config exclude_modules), with an FP8 KV cache ([SPEC] kv_cache_quant_algo FP8; the
# vLLM recipes' kv-cache-dtype fp8); GPT-OSS 120B is OpenAI's MXFP4 release, whose experts
# TensorRT-LLM runs on Blackwell with MXFP8 inputs ([SPEC] TensorRT-LLM's "Deployment Guide for
# GPT-OSS on TensorRT-LLM - Blackwell Hardware", MoE backend support matrix: B200/GB200
# activation MXFP8, weights MXFP4; Scoville's fp8 format, its 8-bit elements without the
# shared scale per 32) and an FP8 KV cache ([SPEC] the Dynamo sweeps' kv_cache_config dtype
# fp8, gen_yaml.py above).
NVFP4_PRECISION = [("precision.experts", "nvfp4"), ("precision.mlp", "nvfp4"),
                   ("precision.mlp_activations", "nvfp4"), ("precision.kv_cache", "fp8")]
# DeepSeek R1's model file keeps the released FP8 attention projections; NVIDIA's NVFP4 release
# leaves self_attn unquantized, in BF16 ([SECONDARY] RedHatAI/DeepSeek-R1-NVFP4-FP8-BLOCK's card:
# nvidia/DeepSeek-R1-NVFP4 with "FP8_BLOCK quantization applied to targeted attention layers";
# the Hugging Face discussion "The Precision Difference in QKV Projection Weights: FP4 vs. BF16
# in DeepSeek R1 FP4 Model"; LMSYS GB200 Part II: NVIDIA's checkpoint does not run q_b_proj in
# FP8). Activations stay FP8: with an FP8 KV cache TensorRT-LLM's MLA runs its attention math in
# FP8. (Measured on the best recipe: 15,141 tok/s per GPU with FP8 projections, 12,526 in BF16.)
DSR1_NVFP4_PRECISION = NVFP4_PRECISION + [("precision.weights", "bf16")]
MXFP8_INPUTS_PRECISION = [("precision.mlp_activations", "fp8"), ("precision.kv_cache", "fp8")]
DEP, TP = True, False  # a pool's attention: data parallel on every GPU, or one group per worker
DEPLOYED_COMPARATORS = {
    "gptoss": {"checkpoint": "openai/gpt-oss-120b", "variant": "trtllm", "experts": 128,
               "precision": MXFP8_INPUTS_PRECISION, "recipes": [
        ("trt P 1xTP1 D 1xTP4", 64, (1, 1, TP), (1, 4, TP), 0, 128, 20000),
        ("trt P 2xTP1 D 1xTP4", 512, (2, 1, TP), (1, 4, TP), 0, 1024, 20000),
        ("trt P 2xTP1 D 1xTP2", 384, (2, 1, TP), (1, 2, TP), 0, 512, 20000),
        ("trt P 2xTP1 D 1xDEP2", 512, (2, 1, TP), (1, 2, DEP), 0, 512, 20000)]},
    "kimi": {"checkpoint": "nvidia/Kimi-K2.5-NVFP4", "variant": "nvfp4", "experts": 384,
             "precision": NVFP4_PRECISION, "recipes": [
        ("trt ctx6dep4_gen1dep16_batch128_eplb0_mtp0", 2253, (6, 4, DEP), (1, 16, DEP), 0, 128,
         16384),
        ("trt ctx8dep4_gen1dep32_batch64_eplb0_mtp0", 2151, (8, 4, DEP), (1, 32, DEP), 0, 64,
         16384),
        ("trt ctx5dep4_gen1dep32_batch32_eplb0_mtp0", 1229, (5, 4, DEP), (1, 32, DEP), 0, 32,
         16384),
        ("vllm disagg-gb300-8p1d-dep4-dep24", 15360, (8, 4, DEP), (1, 24, DEP), 0, 512, 16384),
        ("vllm disagg-gb300-4p1d-dep4-dep8", 3072, (4, 4, DEP), (1, 8, DEP), 0, 256, 16384),
        ("vllm disagg-gb300-3p1d-dep4-dep16", 2048, (3, 4, DEP), (1, 16, DEP), 0, 64, 16384),
        ("vllm disagg-gb300-2p1d-dep4-dep24", 2048, (2, 4, DEP), (1, 24, DEP), 0, 43, 16384)]},
    "dsr1": {"checkpoint": "nvidia/DeepSeek-R1-0528-NVFP4-v2", "variant": "nvfp4",
             "experts": 256, "precision": DSR1_NVFP4_PRECISION, "recipes": [
        ("trt ctx11_gen3_dep4_batch256_eplb0_mtp0", 3228, (11, 2, DEP), (3, 4, DEP), 0, 256,
         16384),
        ("trt ctx14_gen1_dep16_batch128_eplb0_mtp0", 2253, (14, 2, DEP), (1, 16, DEP), 0, 128,
         16384),
        ("trt ctx9_gen1_dep16_batch64_eplb0_mtp0", 1229, (9, 2, DEP), (1, 16, DEP), 0, 64,
         16384),
        ("trt ctx10_gen1_dep8_batch256_eplb0_mtp1", 2253, (10, 2, DEP), (1, 8, DEP), 1, 256,
         16384),
        ("trt ctx13_gen1_dep16_batch64_eplb256_mtp3", 1127, (13, 2, DEP), (1, 16, DEP), 3, 64,
         16384)]},
}


def attention_ranks(pool):
    """A recipe pool's attention-DP ranks: every GPU with attention DP, else one per worker."""
    workers, gpus, dp_attention = pool
    return workers * gpus if dp_attention else workers


def pool_label(pool):
    """A recipe pool as InferenceX writes it: "2 x DEP4", "1 x TP8"."""
    workers, gpus, dp_attention = pool
    return f"{workers} x {'DEP' if dp_attention else 'TP'}{gpus}"


# The stack each recipe's workers run, by the engine its name starts with: Dynamo over
# TensorRT-LLM workers as validate maps InferenceX's 'Dynamo' rows
# (workloads/measurements/framework-stacks.csv); Dynamo over vLLM workers on vLLM's stack (its
# engine's step and scheduling costs; Dynamo routes, the workers step).
DEPLOYED_SOFTWARE = {"trt": "dynamo-trtllm-disaggregated", "vllm": "vllm"}


def deployed_software(recipe_name):
    """The stack of a DEPLOYED_COMPARATORS recipe ("trt ..." or "vllm ...")."""
    engine = recipe_name.split()[0]
    if engine not in DEPLOYED_SOFTWARE:
        raise SystemExit(f"jalapeno-study: recipe {recipe_name!r} names no engine of "
                         f"{sorted(DEPLOYED_SOFTWARE)}")
    return DEPLOYED_SOFTWARE[engine]
# The stacks the study runs: the ones the system files name (docs/software.md). The GPUs'
# tensorrt-llm carries software knobs fitted per stack at the op table on H200 and B200 rows
# (arch/software/tensorrt-llm.op-table.calibration.yaml; they replace any overlay's overheads,
# and --no-calibration drops them with the overlay); persistent-kernels has none.
SOFTWARE = {"jalapeno": "persistent-kernels", "gpu": "tensorrt-llm"}
# [ASSUMPTION] MTP as TensorRT-LLM runs DeepSeek R1: 3 draft positions, each accepted with
# probability 0.7 (mean 2.5 tokens per step); the checkpoint's one MTP module is priced per step.
MTP_DEPTH, MTP_ACCEPTANCE = 3, 0.7
LONG_PROMPTS = 10  # InferenceX runs 10 x N requests per concurrency N
MAX_CONCURRENCY = 1024  # InferenceX's largest N
# Per-iteration software overheads tried on Jalapeño (ms): zero (persistent kernels, the
# baseline) up to well beyond the GPUs' fitted stack (0.5 ms per step plus 3 us per op).
OVERHEADS_MS = [0.25, 0.5, 1, 2, 4]
TOLERANCE = 0.20  # a grid point reproduces a published ratio when within +-20 % of it
# Calibration: the GPUs run with their own overlays (gb300 inherits gb200's: the compute
# fraction anchored on a published DeepSeek R1 prefill) and their stack's fitted software knobs;
# Jalapeño, which has no measurements, gets those hardware-efficiency knobs (achieved fraction
# of peak compute and HBM bandwidth) but not the fitted software time, which belongs to the
# GPUs' TensorRT-LLM stack (Jalapeño keeps its own persistent-kernels profile). The software
# ablation gives it the GPUs' whole stack instead. Knobs belong to the fidelity they were fitted
# at (a fraction of the chip's peaks at the roofline, of the chip model's op time at op-table),
# so the source overlay is the one of the run's fidelity (calibration_source); where it does not
# exist every side runs uncalibrated and the report says so.
CALIBRATION_SYSTEM = "gb200-nvl72"
TRANSFERRED_KNOBS = ("compute_efficiency", "bandwidth_efficiency")
FIDELITIES = ("op-table", "roofline")  # scoville inferencex --fidelity values the study runs at
# The fidelity of every run (configure sets it from --fidelity): runs.base_args passes it
# explicitly, so a change of scoville's default cannot change the study silently, and it is on
# each run's command line, which the run cache key hashes.
FIDELITY = "op-table"
# The workloads studied (configure sets it: --quick studies the first only).
WORKLOADS = ALL_WORKLOADS


def configure(fidelity, workloads):
    """Sets the invocation's fidelity and workloads (command.main, once, before any run)."""
    global FIDELITY, WORKLOADS
    if fidelity not in FIDELITIES:
        raise ValueError(f"jalapeno-study: fidelity {fidelity!r} is not one of {FIDELITIES}")
    FIDELITY = fidelity
    WORKLOADS = workloads


def overlay_file(system, fidelity):
    """arch/systems' overlay of `system` at `fidelity` (relative to ROOT), as scoville finds it:
    <name>.calibration.yaml at the roofline, <name>.<fidelity>.calibration.yaml otherwise."""
    infix = "" if fidelity == "roofline" else "." + fidelity
    return f"arch/systems/{system}{infix}.calibration.yaml"


# {system: its overlay at FIDELITY (relative to ROOT) or None}, looked up once when the study
# starts (snapshot_overlays): every run then names its calibration on its command line
# (--calibration FILE or --no-calibration), so an overlay written while the study runs cannot
# calibrate half of it, and the run cache key sees which overlay a run used.
OVERLAYS = {}


def snapshot_overlays():
    systems = {CALIBRATION_SYSTEM, RUBIN, *(w["gpu"] for w in WORKLOADS)}
    OVERLAYS.clear()
    for system in sorted(systems):
        path = overlay_file(system, FIDELITY)
        OVERLAYS[system] = path if os.path.exists(os.path.join(ROOT, path)) else None


def calibration_source():
    """The overlay Jalapeño's knobs are taken from, at the run's fidelity, or None if absent."""
    return OVERLAYS.get(CALIBRATION_SYSTEM)


def own_calibration(system):
    """The calibration options that give a GPU system its own overlay at the run's fidelity
    (what scoville would apply by itself), or none where it has none."""
    path = OVERLAYS.get(system)
    return ["--calibration", os.path.join(ROOT, path)] if path else ["--no-calibration"]


# The inverse question: undisclosed Jalapeño parameters and their plausible ranges.
GRID_AXES = [
    # (name, unit, values, nominal, why)
    ("hbm_tb_s", "TB/s", [6.4, 8.0, 9.6], 8.0,
     "8 HBM3E stacks at 0.8-1.2 TB/s each (REFERENCE.md hint: 1.0-1.2; 0.8 for a down-binned part)"),
    ("hbm_gb", "GB", [192, 288], 288, "8 x 24 GB (8-Hi) or 8 x 36 GB (12-Hi) stacks"),
    ("compute_x", "x", [0.5, 1.0, 2.0], 1.0,
     "matrix peak 0.5-2x the assumed 4.6 PFLOP/s FP8 (TPU v7-class; GB300 is 5 dense)"),
    ("link_gb_s", "GB/s", [50, 200], 100,
     "per port and direction: 400G to 1.6T Ethernet SerDes (arch/: 800G)"),
    ("link_ns", "ns", [200, 1000], 200,
     "one-way link latency: a direct SerDes hop (arch/: 200 ns) to a NIC-and-switch path (1 us)"),
    # The chip model (op-table) tiles every op through the tiles' double-buffered SRAM and keeps
    # activations in shared SRAM (spilling to HBM when they do not fit); the roofline sees
    # neither, so at the roofline these two axes only repeat the nominal point.
    ("sram_mib", "MiB", [128, 256, 512], 256,
     "[ASSUMPTION] on-die SRAM, tile buffers and shared SRAM scaled together (arch/: 64 x 2 MiB "
     "+ 128 MiB): half to twice; H100 has ~85 MB of L1 and L2, Groq's SRAM-only LPU 230 MB; "
     "512 MiB takes ~130 mm2 (15 % of the ~840 mm2 die) at N3's ~32 Mb/mm2 HD SRAM macros "
     "(TSMC, IEDM 2022 [SECONDARY])"),
    ("tiles", "per die", [32, 64, 128], 64,
     "[ASSUMPTION] the same matrix peak, vector rate, SRAM and SRAM bandwidth split over "
     "fewer, larger tiles (128 x 256 arrays) or more, smaller ones (128 x 64; arch/: 64 of "
     "128 x 128, TPU-like)"),
]



# arch/chips/jalapeno.yaml's tile layout, which grid_files rescales (checked against the file).
NOMINAL_TILE = {"count": 64, "cols": 128, "rows": 128, "vector_flops_per_cycle": 2048,
                "sram_bandwidth_tb_s": 2, "tile_sram_mib": 2, "shared_sram_mib": 128}


def check_nominal_tile():
    """The grid's nominal point must be the arch/ chip: a changed chip file would otherwise make
    every sram_mib / tiles value silently wrong."""
    with open(os.path.join(ROOT, "arch", "chips", "jalapeno.yaml")) as f:
        text = f.read()
    want = [(r"^    count: (\d+)", NOMINAL_TILE["count"]),
            (r"^      cols: (\d+)", NOMINAL_TILE["cols"]),
            (r"^      rows: (\d+)", NOMINAL_TILE["rows"]),
            (r"^      flops_per_cycle: (\d+)", NOMINAL_TILE["vector_flops_per_cycle"]),
            (r"^    sram_bandwidth: (\d+) TB/s", NOMINAL_TILE["sram_bandwidth_tb_s"]),
            (r"^    sram: (\d+) MiB", NOMINAL_TILE["tile_sram_mib"]),
            (r"^    capacity: (\d+) MiB", NOMINAL_TILE["shared_sram_mib"])]
    for pattern, value in want:
        m = re.search(pattern, text, re.M)
        if not m or int(m.group(1)) != value:
            raise SystemExit(f"jalapeno-study: arch/chips/jalapeno.yaml no longer has "
                             f"{pattern!r} = {value}; update NOMINAL_TILE and GRID_AXES")
    sram = NOMINAL_TILE["count"] * NOMINAL_TILE["tile_sram_mib"] + NOMINAL_TILE["shared_sram_mib"]
    nominal = {a[0]: a[3] for a in GRID_AXES}
    if nominal["sram_mib"] != sram or nominal["tiles"] != NOMINAL_TILE["count"]:
        raise SystemExit("jalapeno-study: GRID_AXES' nominal SRAM / tiles are not the chip's")


class Settings:
    """How large a study is: --quick (the smoke test), the default, or --full."""

    def __init__(self, quick, full=False):
        self.quick = quick
        self.full = full
        self.long_prompts = 2 if quick else LONG_PROMPTS  # the sweep check's rerun length
        self.overheads_ms = [1] if quick else OVERHEADS_MS
        self.workloads = ALL_WORKLOADS
        self.max_chips = None  # the system's chips
        if quick:
            self.workloads = ALL_WORKLOADS[:1]
            self.max_chips = 16
            self.concurrency = [1, 8]
            self.prompts = 1
            # Two values on a network axis and on an on-chip one (SRAM: what the op table sees
            # and the roofline does not): 4 grid points, the nominal one included.
            self.grid = {"hbm_tb_s": [8.0], "hbm_gb": [288], "compute_x": [1.0],
                         "link_gb_s": [100], "link_ns": [200, 1000], "sram_mib": [256, 512],
                         "tiles": [64]}
            self.wide, self.wide_prompts = [], 1
        else:
            # InferenceX sweeps every power of two; 1, 64 and 512 (the best-latency end, the
            # middle and the peaks of the first version) keep the study to about an hour on a
            # shared two-core machine (the report's peak table shows where each peak lies).
            self.concurrency = [1, 64, 512]
            self.prompts = 2  # InferenceX runs 10 x N requests; 2 x N (see Limitations)
            self.grid = {name: values for name, _, values, _, _ in GRID_AXES}
            # jalapeno-2048 pools wider than one 128-chip domain (WORKLOADS "wide": tp, ep;
            # attention data-parallel over every chip) at the top InferenceX concurrencies.
            # A 256-chip pool at N = 1,024 serves 4 users per chip, where the 128-chip peaks
            # serve hundreds; 1 x N requests (the longest runs of the study).
            self.wide = [1024]
            self.wide_prompts = 1
            if full:
                # InferenceX's own sweep: every power of two, 10 x N requests: about 18 times
                # the default's requests per mapping (hours on two cores).
                self.concurrency = [2**i for i in range(11)]
                self.prompts = LONG_PROMPTS

    def chips(self, system_chips):
        return min(system_chips, self.max_chips or system_chips)


