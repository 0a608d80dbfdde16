"""The Jalapeño study's numbers from the runs' points tables: each side's peak-throughput and
best-latency points, the comparison's ratios (Jalapeño over the GPU), the one-knob attribution
and the inverse grid's verdicts against the published ratios. Pure functions of DataFrames.
"""

import pandas as pd

from . import study
from .study import GRID_AXES, TOLERANCE


def peak(points):
    """The peak-throughput point (InferenceX's 'peak throughput' of a frontier)."""
    return points.loc[points["tput_per_chip"].idxmax()]


def best_latency(points):
    """The point with the best end-to-end normalised interactivity (output tokens / E2EL)."""
    return points.loc[points["median_e2e_intvty"].idxmax()]


def latency_at(points, tput):
    """Lowest median E2EL (s) among points delivering at least `tput` tok/s per chip."""
    ok = points[points["tput_per_chip"] >= tput]
    return float(ok["median_e2el_s"].min()) if len(ok) else float("nan")


def ratios(jal, gpu):
    """The comparison's ratios, Jalapeño over the GPU (>1: Jalapeño better)."""
    pj, pg = peak(jal), peak(gpu)
    t_star = 0.5 * min(pj["tput_per_chip"], pg["tput_per_chip"])
    return {
        "kw_tdp": pj["tput_per_kw_tdp"] / pg["tput_per_kw_tdp"],
        "kw_sim": pj["tput_per_kw_sim"] / pg["tput_per_kw_sim"],
        "chip": pj["tput_per_chip"] / pg["tput_per_chip"],
        "lat_best": best_latency(jal)["median_e2e_intvty"] / best_latency(gpu)["median_e2e_intvty"],
        "lat_iso": latency_at(gpu, t_star) / latency_at(jal, t_star),
        "t_star": t_star,
    }



def compared_baselines(base):
    """(workload, Jalapeño's baseline, the GPU's) of each workload whose two baselines ran,
    from {(workload key, system): points}."""
    for w in study.WORKLOADS:
        jal, gpu = base.get((w["key"], "jalapeno-128")), base.get((w["key"], w["gpu"]))
        if jal is not None and gpu is not None:
            yield w, jal, gpu


def ratio_rows(base):
    """{workload key: ratios} for the workloads whose two baselines ran."""
    return {w["key"]: ratios(jal, gpu) for w, jal, gpu in compared_baselines(base)}


ABLATION_KNOBS = ("kv", "network", "software", "fusion", "mtp", "power")

# The third part of an ablation's key, (workload, knob, SEARCHED): the knob's own --search
# (experiments.ablation_futures); (workload, knob) alone is the replay of the baseline's pairs.
SEARCHED = "searched"

ATTRIBUTION_COLUMNS = ["workload", "knob", "kw", "kw_factor", "lat", "lat_factor",
                       "kw_replay", "kw_factor_replay", "lat_replay", "lat_factor_replay"]


def attribution(base, ablations):
    """One row per workload and knob (ABLATION_KNOBS, then "rest"): the ratios with the knob
    changed (kw, lat) and the factors baseline ratio / that ratio (kw_factor, lat_factor).
    A knob with a search of its own is read from the search and the replay together (the best
    mapping with the knob changed, wherever it lies); the replay's alone are kept beside
    (kw_replay, ..., lat_factor_replay; for a knob without a search, the same numbers).
    "power" divides by the simulated average power instead of TDP (not a hardware knob: left
    out of "rest"); "rest" is the baseline over the product of the other knobs' factors, with
    the baseline's ratios as its kw and lat. Knobs whose runs all failed have no row."""
    summary = ratio_rows(base)
    table = []
    for w in study.WORKLOADS:
        k = w["key"]
        if k not in summary:
            continue
        r0 = summary[k]
        jal, gpu = base[(k, "jalapeno-128")], base[(k, w["gpu"])]

        def knob_ratios(knob, points):
            r = ratios(gpu=points, jal=jal) if knob == "mtp" else ratios(jal=points, gpu=gpu)
            return r["kw_tdp"], r["lat_best"]

        # product of the knobs' factors, per factor column
        prod = {"kw_factor": 1.0, "lat_factor": 1.0, "kw_factor_replay": 1.0,
                "lat_factor_replay": 1.0}
        for knob in ABLATION_KNOBS:
            if knob == "power":
                kw = kw_replay = r0["kw_sim"]
                lat = lat_replay = r0["lat_best"]
            else:
                replayed, searched = ablations.get((k, knob)), ablations.get((k, knob, SEARCHED))
                frames = [f for f in (replayed, searched) if f is not None]
                if not frames:
                    continue
                kw, lat = knob_ratios(knob, pd.concat(frames, ignore_index=True))
                kw_replay, lat_replay = (knob_ratios(knob, replayed) if replayed is not None
                                         else (float("nan"), float("nan")))
            row = {"workload": k, "knob": knob, "kw": kw, "kw_factor": r0["kw_tdp"] / kw,
                   "lat": lat, "lat_factor": r0["lat_best"] / lat, "kw_replay": kw_replay,
                   "kw_factor_replay": r0["kw_tdp"] / kw_replay, "lat_replay": lat_replay,
                   "lat_factor_replay": r0["lat_best"] / lat_replay}
            if knob != "power":
                for column in prod:
                    if row[column] == row[column]:  # a knob with no replay: not in its rest
                        prod[column] *= row[column]
            table.append(row)
        table.append({"workload": k, "knob": "rest", "kw": r0["kw_tdp"], "lat": r0["lat_best"],
                      "kw_replay": r0["kw_tdp"], "lat_replay": r0["lat_best"],
                      **{column: (r0["kw_tdp"] if column.startswith("kw") else r0["lat_best"])
                         / product for column, product in prod.items()}})
    return pd.DataFrame(table, columns=ATTRIBUTION_COLUMNS)


def score_grid(grid):
    """Adds to the inverse grid (experiments.grid_study's rows) whether each feasible (point,
    workload) reproduces the published ratios within TOLERANCE (consistent), its distance from
    them, and whether the point reproduces every workload (joint)."""
    if not len(grid):
        return grid
    pub = {w["key"]: w for w in study.WORKLOADS}
    ok = grid["feasible"].astype(bool)
    grid["feasible"] = ok
    kw_err = grid.apply(lambda r: r["kw"] / pub[r["workload"]]["pub_kw"] - 1
                        if r["feasible"] else float("nan"), axis=1)
    lat_err = grid.apply(lambda r: r["lat"] / pub[r["workload"]]["pub_lat"] - 1
                         if r["feasible"] else float("nan"), axis=1)
    grid["consistent"] = (kw_err.abs() <= TOLERANCE) & (lat_err.abs() <= TOLERANCE)
    grid["distance"] = (kw_err.abs().pow(2) + lat_err.abs().pow(2)).pow(0.5)
    grid["joint"] = grid.groupby([a[0] for a in GRID_AXES])["consistent"].transform("all")
    return grid
