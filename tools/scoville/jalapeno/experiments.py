"""What the Jalapeño study runs: the baselines (--search on every system), the raw-peaks and
one-knob ablation replays of their frontiers, the inverse grid, the checks of the shortened
sweep and of the GPU side at low concurrency, the software-overhead sweep and the jalapeno-2048
wide pools. Each function submits runs to a runs.Runner and returns futures or frames.
"""

import os

import pandas as pd

from scoville.frontier import inferencex_frontier

from . import study
from .analysis import SEARCHED, best_latency, compared_baselines, peak, ratios
from .runs import base_args, collect, mapping_args, rubin_args, side_args
from .study import GRID_AXES, MAX_CONCURRENCY, MTP_ACCEPTANCE, ROOT, RUBIN, SOFTWARE, SYSTEM_CHIPS
from .variants import (deployed_mapping, deployed_model, disagg_mapping, grid_files, mtp_model,
                       overhead_overlay, unfused_software)


def baseline_futures(runner, s, work, jal_cal, gpu_cal):
    """Full --search on every system of every workload, with the given calibration options."""
    futures = {}
    for w in study.WORKLOADS:
        futures[(w["key"], "jalapeno-128")] = runner.submit(side_args(
            s, work, w, "jalapeno", s.concurrency, s.prompts, jal_cal) + ["--search"])
        futures[(w["key"], w["gpu"])] = runner.submit(side_args(
            s, work, w, "gpu", s.concurrency, s.prompts, gpu_cal) + ["--search"])
        futures[(w["key"], RUBIN)] = runner.submit(rubin_args(
            s, work, w, s.concurrency, s.prompts, gpu_cal) + ["--search"])
    return futures


def sweep_check(runner, s, work, base, jal_cal, gpu_cal):
    """How far the shortened sweep moves the headline: each baseline's peak-throughput point
    and best-latency point rerun with InferenceX's 10 x N requests, and the peak mapping at
    the next power of two (2N, up to 1,024) the sweep skipped. Returns
    {(workload, system): {"peak_long", "best_long", "peak_next"}: one-row frames or None}."""
    if s.full:
        return {}
    futs = {}
    for w in study.WORKLOADS:
        for sysname in ("jalapeno-128", w["gpu"]):
            frame = base.get((w["key"], sysname))
            if frame is None:
                continue
            side, cal = (("jalapeno", jal_cal) if sysname == "jalapeno-128"
                         else ("gpu", gpu_cal))
            args = lambda cs, n, w=w, side=side, cal=cal: side_args(  # noqa: E731
                s, work, w, side, cs, n, cal)
            p, b = peak(frame), best_latency(frame)
            n_peak, n_best = int(p["concurrency"]), int(b["concurrency"])
            entry = {"peak_long": runner.submit(args([n_peak], s.long_prompts)
                                                + mapping_args(p, work)),
                     "best_long": runner.submit(args([n_best], s.long_prompts)
                                                + mapping_args(b, work))}
            if 2 * n_peak <= MAX_CONCURRENCY and 2 * n_peak not in s.concurrency:
                entry["peak_next"] = runner.submit(args([2 * n_peak], s.prompts)
                                                   + mapping_args(p, work))
            futs[(w["key"], sysname)] = entry
    return futs


def low_concurrency_rows(path):
    """The published low-concurrency GPU points of a study workload: GB200 NVL72 serving
    DeepSeek R1 with MTP (Dynamo + TensorRT-LLM, disaggregated), 1K/1K at N <= 16
    (workloads/measurements/published/measurements.csv). Empty when the file is absent."""
    if not path or not os.path.exists(path):
        return pd.DataFrame()
    d = pd.read_csv(path)
    keep = (d["system"].astype(str).str.contains("GB200")
            & d["model"].astype(str).str.contains("DeepSeek-R1")
            & d["framework"].astype(str).str.contains("MTP")
            & (d["concurrency"] <= 16) & (d["isl"] == 1024) & (d["osl"] == 1024)
            & d["interactivity_tok_s_user"].notna())
    return d[keep].sort_values("concurrency")


def low_concurrency_check(runner, s, work, rows):
    """The GPU side's latency where the headline reads it (low N), against the one published
    low-N point set: gb200-nvl72, DeepSeek R1 with the study's MTP, 1K/1K at each row's N with
    s.long_prompts x N requests, once with --search (the layout the headline's GPU side picks)
    and once as one TEP8 worker (tp = ep = 8, the decode layout those rows ran). Returns
    (search future, TEP8 future), or None."""
    if not len(rows):
        return None
    concs = sorted({int(c) for c in rows["concurrency"]})
    args = base_args(mtp_model(work, "deepseek-r1"), "gb200-nvl72", s.chips(72), SOFTWARE["gpu"],
                     concs, s.long_prompts, mtp=True, isl=1024, osl=1024)
    tep8 = base_args(mtp_model(work, "deepseek-r1"), "gb200-nvl72", 8, SOFTWARE["gpu"], concs,
                     s.long_prompts, mtp=True, isl=1024, osl=1024) + ["--tp", "8", "--ep", "8"]
    return runner.submit(args + ["--search"]), runner.submit(tep8)


def overhead_sweep(runner, s, work, base, base_overlay):
    """Jalapeño's baseline peak-throughput and best-latency points rerun with a per-iteration
    software overhead (OVERHEADS_MS): how much per-step overhead the published latency ratios
    leave room for. Returns {(workload, ms): {"peak", "best"}: futures}."""
    futs = {}
    for w in study.WORKLOADS:
        frame = base.get((w["key"], "jalapeno-128"))
        if frame is None:
            continue
        for ms in s.overheads_ms:
            cal = ["--calibration", overhead_overlay(work, base_overlay, ms)]
            futs[(w["key"], ms)] = {
                name: runner.submit(base_args(
                    w["model"], "jalapeno-128", s.chips(128), SOFTWARE["jalapeno"],
                    [int(row["concurrency"])], s.prompts, cal=cal) + mapping_args(row, work))
                for name, row in (("peak", peak(frame)), ("best", best_latency(frame)))}
    return futs


def frontier_pairs(frame, work):
    """{mapping options: concurrencies} of a baseline's points on InferenceX's frontier (the
    `pareto` flag scoville wrote) with its peak-throughput and best-latency points, which the
    ratios read."""
    pairs = {}
    for _, r in [*inferencex_frontier(frame).iterrows(), (None, peak(frame)),
                 (None, best_latency(frame))]:
        pairs.setdefault(tuple(mapping_args(r, work)), set()).add(int(r["concurrency"]))
    return pairs


def replay(runner, frame, work, make_args):
    """A variant run on each of a baseline's frontier_pairs: make_args(mapping options, sorted
    concurrencies) gives its command line. Returns the futures."""
    return [runner.submit(make_args(list(m), sorted(cs)))
            for m, cs in frontier_pairs(frame, work).items()]


def concat_results(futs):
    """{key: [futures]} -> {key: one frame of every run's points}, keys with none left out."""
    out = {}
    for key, futures in futs.items():
        frames = [f.result() for f in futures]
        frames = [f for f in frames if f is not None and len(f)]
        if frames:
            out[key] = pd.concat(frames, ignore_index=True)
    return out


def raw_peak_futures(runner, s, work, base):
    """Raw peaks: both sides' baseline pairs again with --no-calibration."""
    raw_futs = {}
    for w, jal, gpu in compared_baselines(base):
        k = w["key"]
        raw_futs[(k, "jalapeno-128")] = replay(runner, jal, work, lambda m, cs, w=w: side_args(
            s, work, w, "jalapeno", cs, s.prompts, ["--no-calibration"], chips=128) + m)
        raw_futs[(k, w["gpu"])] = replay(runner, gpu, work, lambda m, cs, w=w: side_args(
            s, work, w, "gpu", cs, s.prompts, ["--no-calibration"], chips=72) + m)
    return raw_futs


def ablation_futures(runner, s, work, base, jal_cal, gpu_cal):
    """Ablations: one knob each (network, software, vector-op fusion, MTP, KV placement). Each
    hardware or software knob runs twice: on the baseline frontier's (mapping, concurrency)
    pairs (key (workload, knob)) and as a --search of its own over the baseline's concurrencies
    (key (workload, knob, SEARCHED)), since a changed knob can make another mapping best; the KV
    ablation runs its own mappings."""
    abl_futs = {}
    unfused = unfused_software(work)

    def both(key, frame, make_args, chips):
        """The replay of `frame`'s frontier pairs on the system's `chips` and the knob's own
        search on as many chips as the baselines searched (make_args(concurrencies, chips))."""
        abl_futs[key] = replay(runner, frame, work, lambda m, cs: make_args(cs, chips) + m)
        abl_futs[key + (SEARCHED,)] = [runner.submit(make_args(s.concurrency, s.chips(chips))
                                                     + ["--search"])]

    for w, jal, gpu in compared_baselines(base):
        k = w["key"]
        moe = True  # all three models are MoE
        both((k, "network"), jal, lambda cs, n, w=w: base_args(
            w["model"], "arch/systems/variants/jalapeno-128-switch.yaml", n,
            SOFTWARE["jalapeno"], cs, s.prompts, cal=jal_cal), 128)
        # The GPUs' software as calibrated: their stack (its fitted knobs apply with it) plus
        # the whole GPU overlay; at raw peaks the stack's own profile alone.
        gpu_stack = (["--calibration", os.path.join(ROOT, study.calibration_source())]
                     if "--no-calibration" not in gpu_cal and study.calibration_source()
                     else ["--no-calibration"])
        both((k, "software"), jal, lambda cs, n, w=w, cal=gpu_stack: base_args(
            w["model"], "jalapeno-128", n, SOFTWARE["gpu"], cs, s.prompts, cal=cal), 128)
        # Vector ops as kernels of their own on Jalapeño (its stack fuses them).
        both((k, "fusion"), jal, lambda cs, n, w=w: base_args(
            w["model"], "jalapeno-128", n, unfused, cs, s.prompts, cal=jal_cal), 128)
        mtp_on = not w["gpu_mtp"]
        gpu_model = mtp_model(work, w["model"]) if mtp_on else w["model"]
        both((k, "mtp"), gpu, lambda cs, n, w=w, gm=gpu_model, on=mtp_on: base_args(
            gm, w["gpu"], n, SOFTWARE["gpu"], cs, s.prompts, mtp=on, cal=gpu_cal), 72)
        # KV placement: the peak-throughput and the best-latency mappings each as the decode
        # pool, with a prefill pool of the same size (and half, from 4 chips); the KV cache
        # moves over the torus after prefill instead of staying where it was written.
        disagg = []
        for row in (peak(jal), best_latency(jal)):
            t = int(row["tp"])
            for p in sorted({t} | ({t // 2} if t >= 4 else set())):
                path = disagg_mapping(work, p, row, moe)
                if path not in disagg:
                    disagg.append(path)
        abl_futs[(k, "kv")] = [runner.submit(base_args(
            w["model"], "jalapeno-128", 128, SOFTWARE["jalapeno"], s.concurrency, s.prompts,
            cal=jal_cal) + ["--mapping", path]) for path in disagg]
    return abl_futs


def grid_points(s):
    """The inverse grid's points ({axis: value}) of s.grid: one parameter at a time (s.grid_mode
    "oat": the nominal chip, then each axis's other values with the rest nominal) or every
    combination, nearest the nominal chip first (so a run cut short has the one-at-a-time
    points)."""
    names = [a[0] for a in GRID_AXES]
    nominal = {a[0]: a[3] for a in GRID_AXES}
    if s.grid_mode == "oat":
        # Built, not filtered from the product: a nominal value outside its axis's values
        # (links: 100 GB/s against 50 and 200) put every product point one axis off, so a
        # filter kept only the link points.
        points = [dict(nominal)]
        for n in names:
            points += [dict(nominal, **{n: v}) for v in s.grid[n] if v != nominal[n]]
        return points
    points = [{}]
    for n in names:
        points = [dict(p, **{n: v}) for p in points for v in s.grid[n]]
    off = lambda p: sum(p[n] != nominal[n] for n in names)  # noqa: E731
    return sorted(points, key=off)


def grid_study(runner, s, work, base, jal_cal):
    """The inverse question: the grid over the undisclosed parameters, Jalapeño side only, on
    the baseline's best mappings (peak throughput at its concurrency, best latency at its own).
    Returns one row per (point, workload): the point, feasible, and the ratios kw and lat."""
    grid_futs = []
    for p in grid_points(s):
        chip, system = grid_files(work, p)
        for w in study.WORKLOADS:
            jal = base.get((w["key"], "jalapeno-128"))
            if jal is None:
                continue
            top = jal.sort_values("tput_per_chip", ascending=False)
            best = top.iloc[0]
            cands = [(tuple(mapping_args(best, work)), int(best["concurrency"]))]
            # With less HBM than the baseline also the best mapping on at least twice the
            # chips (the best may no longer fit).
            if p["hbm_gb"] < 288:
                wider = top[top["tp"] >= 2 * best["tp"]]
                if len(wider):
                    r = wider.iloc[0]
                    cands.append((tuple(mapping_args(r, work)), int(r["concurrency"])))
            lat = best_latency(jal)
            cands.append((tuple(mapping_args(lat, work)), int(lat["concurrency"])))
            # Links enter the latency run only: the peak runs use the nominal network, so they
            # are shared by the grid points that differ only in their links.
            futs = [runner.submit(base_args(
                w["model"], system if i == len(cands) - 1 else "jalapeno-128", 128,
                SOFTWARE["jalapeno"], [c], s.prompts, chip=chip, cal=jal_cal) + list(m))
                for i, (m, c) in enumerate(cands)]
            grid_futs.append((p, w["key"], futs))
    w_by = {w["key"]: w for w in study.WORKLOADS}
    grid_rows = []
    for p, k, futs in grid_futs:
        # The peak comes from the peak runs only, the latency from every run.
        frames = [f.result() for f in futs]
        peaks = [f for f in frames[:-1] if f is not None and len(f)]
        frames = [f for f in frames if f is not None and len(f)]
        if not peaks:
            grid_rows.append(dict(p, workload=k, feasible=False))
            continue
        jal = pd.concat(frames, ignore_index=True)
        gpu = base[(k, w_by[k]["gpu"])]
        r = ratios(pd.concat(peaks, ignore_index=True), gpu)
        lat = ratios(jal, gpu)["lat_best"]
        grid_rows.append(dict(p, workload=k, feasible=True, kw=r["kw_tdp"], lat=lat))
    return pd.DataFrame(grid_rows)


def run_study(runner, s, work, jal_cal, gpu_cal):
    """The calibrated study (baselines, ablations, grid) and the raw-peaks baselines (the
    jalapeno-2048 runs: wide_futures). Returns (base, raw, ablations, grid)."""
    # 1. Baselines: full --search on every system, calibrated and at raw peaks.
    base = collect(baseline_futures(runner, s, work, jal_cal, gpu_cal))
    # 2. Ablations: one knob each, on the baseline frontier's (mapping, concurrency) pairs.
    raw_futs = raw_peak_futures(runner, s, work, base)
    abl_futs = ablation_futures(runner, s, work, base, jal_cal, gpu_cal)
    raw = concat_results(raw_futs)
    ablations = concat_results(abl_futs)
    # 3. Inverse question.
    grid = grid_study(runner, s, work, base, jal_cal)
    return base, raw, ablations, grid


def wide_futures(runner, s, work, jal_cal):
    """jalapeno-2048 adds pools wider than one 128-chip domain: attention data-parallel over all
    of them, the experts spread over ep of them (replicated tp / ep times). Submitted last:
    they are the longest runs, and an invocation stopped before them has every other run
    cached (--no-wide then renders the report from those)."""
    futures = {}
    for w in study.WORKLOADS if s.wide else []:
        tp, ep = w["wide"]
        futures[(w["key"], "jalapeno-2048")] = runner.submit(
            base_args(w["model"], "jalapeno-2048", tp, SOFTWARE["jalapeno"], s.wide,
                      s.wide_prompts, cal=jal_cal)
            + ["--tp", str(tp), "--ep", str(ep), "--attn-dp", str(tp)],
            timeout=s.wide_timeout)
    return futures


def deployed_comparators(runner, s, work):
    """Each workload's GPU comparator as InferenceX deployed it (study.DEPLOYED_COMPARATORS):
    every recipe at its own concurrency, on the GPU system's own overlay (as the headline's GPUs)
    and at raw peaks. Returns {workload: [(recipe, calibrated future, raw future)]}."""
    out = {}
    for w in study.WORKLOADS:
        deployed = study.DEPLOYED_COMPARATORS.get(w["key"])
        if deployed is None or s.max_chips is not None:
            continue
        entries = []
        for recipe in deployed["recipes"]:
            name, concurrency, prefill, decode, mtp, seqs_per_rank, tokens_per_rank = recipe
            model = deployed_model(work, w["key"], w["model"], mtp > 0)
            # both limits per attention-DP rank, as the engines apply them (study.py)
            extra = ["--mapping", deployed_mapping(work, prefill, decode, deployed["experts"]),
                     "--max-num-seqs", str(seqs_per_rank * study.attention_ranks(decode)),
                     "--max-batched-tokens", str(tokens_per_rank)]
            if mtp:
                extra += ["--mtp-depth", str(mtp), "--mtp-acceptance", str(MTP_ACCEPTANCE)]

            def args(cal, model=model, concurrency=concurrency, extra=extra,
                     software=study.deployed_software(name)):
                # InferenceX's 10 x N requests: the check is against its absolute figure
                return base_args(model, w["gpu"], SYSTEM_CHIPS[w["gpu"]], software,
                                 [concurrency], s.long_prompts, cal=cal) + extra
            entries.append((recipe, runner.submit(args(())),
                            runner.submit(args(["--no-calibration"]))))
        out[w["key"]] = entries
    return out
