"""The Jalapeño study's check of whether the published latency figures can hold together: each
workload's published latency ratio against Jalapeño's own published interactivity, given the
GPU baseline as simulated (published.latency_pair)."""

from . import published, study
from .analysis import best_latency

# The study's requests draw output lengths uniformly in [0.8, 1] x OSL (inferencex's default
# range ratio): n, the mean output tokens of a request, enters E2E interactivity.
MEAN_OUTPUT_TOKENS = 0.9 * study.OSL
# Jalapeño's published interactivity per workload (REFERENCE.md [VENDOR]) and whether it is a
# lower bound ("more than").
ABSOLUTE = {"gptoss": (published.PUB_GPTOSS_TOK_S_USER, False),
            "dsr1": (published.PUB_DSR1_SINGLE_REQUEST_TOK_S, True)}


def consistency_section(add, base):
    """What each published latency ratio asks of Jalapeño against the simulated GPU baseline,
    and whether it agrees with Jalapeño's own published interactivity."""
    rows = []
    for w in study.WORKLOADS:
        jal, gpu = base.get((w["key"], "jalapeno-128")), base.get((w["key"], w["gpu"]))
        if jal is None or gpu is None:
            continue
        j, g = best_latency(jal), best_latency(gpu)
        absolute, at_least = ABSOLUTE.get(w["key"], (None, False))
        pair = published.latency_pair(published.PUB_LATENCY_RATIO[w["key"]],
                                      float(g["median_e2e_intvty"]), float(j["median_ttft_s"]),
                                      MEAN_OUTPUT_TOKENS, absolute, at_least)
        rows.append((w, j, g, absolute, at_least, pair))
    if not rows:
        return
    add("## Can the published latency figures hold together?")
    add("")
    add("A latency ratio is Jalapeño's best end-to-end interactivity (output tokens over E2E "
        "latency, TTFT included) over the GPU's; for a request of n output tokens that is "
        "n / (TTFT + (n - 1) TPOT). Against the GPU baseline as simulated (its best point "
        f"above; n = {MEAN_OUTPUT_TOKENS:.0f}, the requests' mean), each published ratio "
        "asks for a Jalapeño E2E interactivity, and where Jalapeño's own interactivity is "
        "published (1 / TPOT) the two figures together ask for a TTFT. `least TTFT` is the "
        "shortest first-token wait at which the ratio stays within +15 % while 1 / TPOT stays "
        "within -20 % of the published figure; `GPU implied` is the GPU E2E interactivity at "
        "which both published figures hold at Jalapeño's simulated TTFT.")
    add("")
    add("| workload | published ratio | Jalapeño published | GPU best E2E (sim.) | Jalapeño E2E "
        "the ratio asks (-15 %) | Jalapeño sim.: E2E / 1/TPOT / TTFT | least TTFT for both | "
        "GPU implied |")
    add("|---|---:|---:|---:|---:|---|---:|---:|")
    for w, j, g, absolute, at_least, pair in rows:
        pub = ("–" if absolute is None else
               f"{'> ' if at_least else '~'}{absolute:,.0f} tok/s/user")
        ttft = ("–" if pair["ttft_needed_s"] is None else f"{pair['ttft_needed_s']:.2f} s")
        implied = ("–" if pair["gpu_implied"] is None else f"{pair['gpu_implied']:,.0f}")
        add(f"| {w['label']} | {published.PUB_LATENCY_RATIO[w['key']]:.1f} | {pub} | "
            f"{g['median_e2e_intvty']:,.0f} | {pair['jal_e2e_needed']:,.0f} | "
            f"{j['median_e2e_intvty']:,.0f} / {j['intvty']:,.0f} / "
            f"{j['median_ttft_s'] * 1e3:.0f} ms | {ttft} | {implied} |")
    add("")
    for w, j, g, absolute, at_least, pair in rows:
        ttft_needed = pair["ttft_needed_s"]
        if ttft_needed is not None and ttft_needed > 2 * float(j["median_ttft_s"]):
            add(f"- **{w['label']}**: against the {w['gpu_label']} baseline as simulated "
                f"({g['median_e2e_intvty']:,.0f} tok/s/user end to end), the published "
                f"{published.PUB_LATENCY_RATIO[w['key']]:.1f}x and ~{absolute:,.0f} tok/s/user "
                f"hold together only if one request waited at least {ttft_needed:.2f} s for "
                f"its first token, {ttft_needed / float(j['median_ttft_s']):.0f} times "
                f"Jalapeño's simulated TTFT there; at that TTFT both hold if the "
                f"{w['gpu_label']}'s best were about {pair['gpu_implied']:,.0f} tok/s/user, "
                f"{pair['gpu_implied'] / float(g['median_e2e_intvty']):.1f}x the simulated "
                f"one. A Jalapeño whose {study.ISL:,}-token prefill ran that much slower than "
                "simulated could not reach the published per-kW peak, which those prefills "
                "set, so no Jalapeño "
                "parameter reconciles the pair against this baseline: what breaks it is the "
                "GPU's latency at one user, which no published measurement of this model on "
                "this GPU checks (the GPU side at N = 1 extrapolates software time fitted at "
                "N = 64-256).")
        elif at_least and pair["jal_e2e_needed"] > float(j["median_e2e_intvty"]):
            add(f"- **{w['label']}**: the published {published.PUB_LATENCY_RATIO[w['key']]:.1f}x "
                f"asks Jalapeño for at least {pair['jal_e2e_needed']:,.0f} tok/s/user end to "
                f"end against the {w['gpu_label']} baseline as simulated "
                f"({g['median_e2e_intvty']:,.0f}), i.e. 1 / TPOT of "
                f"{pair['tpot_rate_needed']:,.0f} at its simulated TTFT, consistent with its "
                f"published '> {absolute:,.0f}'; the simulated Jalapeño reaches "
                f"{j['median_e2e_intvty']:,.0f}, and the inverse grid's highest latency ratio "
                "(above) falls short too: its per-layer latency (collectives and op "
                "latencies at one request), not a rate, would have to shrink.")
    add("")
