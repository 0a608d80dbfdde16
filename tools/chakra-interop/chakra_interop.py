#!/usr/bin/python3
"""Chakra interop check with ASTRA-sim (docs/traces-chakra.md, "Interop check").

For each case (a decode step of a model and mapping) it exports Scoville's Chakra trace with
chip-model durations, checks the conventions ASTRA-sim needs (no zero-work node, a duration on
every compute node), runs the trace on Scoville's own system run (`scoville run --system
--trace-file`) and, when an ASTRA-sim binary is given (--astra-sim or $ASTRA_SIM: the analytical
backend, AstraSim_Analytical_Congestion_Unaware), runs the same files on ASTRA-sim with the same
network (bandwidth, per-hop latency, the collective algorithm Scoville chose) and compares the
step times. With ASTRA-sim's example microbenchmarks (--astra-examples or $ASTRA_SIM_EXAMPLES:
astra-sim/examples/workload/microbenchmarks) it also runs them on `scoville run --system` and
compares each with `scoville net` for the same collective, ranks and size.

Both sides use the wire-only variant of the system (its `collectives:` library model removed),
because ASTRA-sim's analytical network has no collective-library latency.

Exit status: 0 when every comparison is within --tolerance, 1 otherwise, 2 for a usage error.
Needs only the Python 3 standard library.
"""

import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import chakra_dump  # noqa: E402  (the repository's pure-Python Chakra decoder)

# The floors of issue 28: decode steps of llama-3.1-8b (TP 8, with and without sequence
# parallelism) and gpt-oss-120b (TP 8 / EP 8). Batch and context are [ASSUMPTION] a mid-size
# decode step (32 sequences at 2048 tokens of context).
CASES = {
    "llama-tp8": "--model llama-3.1-8b --tp 8",
    "llama-tp8-sp": "--model llama-3.1-8b --tp 8 --sequence-parallel",
    "gpt-oss-tp8-ep8": "--model gpt-oss-120b --tp 8 --ep 8",
}
SHAPE = "--phase decode --batch 32 --context 2048"

# Scoville algorithm -> ASTRA-sim native collective implementation (astra-sim/system/Sys.cc
# generate_collective_impl_from_input: "ring", "direct", "halvingDoubling", "doubleBinaryTree").
ASTRA_IMPLEMENTATION = {
    "ring": "ring",
    "direct": "direct",
    "recursive_halving_doubling": "halvingDoubling",
    "tree": "doubleBinaryTree",
}
UNITS = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "m": 1e-3, "u": 1e-6, "n": 1e-9}


def quantity(text, unit):
    """'25 GB/s' -> 25e9 (SI); `unit` is what follows the prefix."""
    m = re.match(r"\s*([0-9.eE+-]+)\s*([kMGTmun]?)" + re.escape(unit) + r"\b", text)
    if not m:
        raise ValueError(f"cannot read {text!r} as {unit}")
    return float(m.group(1)) * UNITS[m.group(2)]


def wire_only_system(system_yaml, out_path):
    """The system without its network.collectives block (the collective-library model)."""
    lines, out, skip = open(system_yaml).read().splitlines(), [], None
    for line in lines:
        indent = len(line) - len(line.lstrip())
        if skip is not None and (line.strip() == "" or indent > skip):
            continue
        skip = None
        if line.strip().startswith("collectives:"):
            skip = indent
            continue
        out.append(line)
    with open(out_path + ".tmp", "w") as f:
        f.write("\n".join(out) + "\n")
    os.replace(out_path + ".tmp", out_path)


def local_network(system_yaml):
    """Per-GPU bandwidth (B/s) and end-to-end hop latency (s) of the local switch network."""
    text = open(system_yaml).read()
    local = text[text.index("local:"):]

    def value(key, unit):
        m = re.search(r"\b" + key + r":\s*([^#\n]+)", local)
        return quantity(m.group(1), unit)

    lanes = float(re.search(r"\blanes:\s*([0-9]+)", local).group(1))
    bandwidth = lanes * value("bandwidth_per_lane", "B/s")
    link_latency = value("latency", "s")
    switch = local[local.index("switch:"):]
    switch_latency = quantity(re.search(r"\blatency:\s*([^#\n]+)", switch).group(1), "s")
    return bandwidth, 2 * link_latency + switch_latency


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    return p.stdout


def check_conventions(prefix, ranks):
    """The self-contained part: no zero-work node, a duration on every compute node."""
    problems = []
    for r in range(ranks):
        path = f"{prefix}.{r}.et"
        trace = chakra_dump.read_trace(open(path, "rb").read())
        for n in trace["nodes"]:
            a = n["attr"]
            where = f"{path}: node {n['id']} ({n['name']})"
            if n["type"] == "COMP_NODE":
                if a.get("num_ops", 0) < 1 or a.get("tensor_size", 0) < 1:
                    problems.append(f"{where}: zero-work node")
                if "duration_micros" not in n and "scoville.duration_s" not in a:
                    problems.append(f"{where}: no duration")
            if n["type"] == "COMM_COLL_NODE" and a.get("comm_size", 0) < 1:
                problems.append(f"{where}: comm_size 0")
    return problems


def astra_configs(work, bandwidth, hop_latency, ranks, implementations, roofline):
    """System JSON, network YAML and remote-memory JSON for ASTRA-sim's analytical backend."""
    system = {
        "scheduling-policy": "LIFO",
        "endpoint-delay": 0,  # Scoville's wire model has no per-message endpoint delay
        "active-chunks-per-dimension": 1,
        "preferred-dataset-splits": 1,  # one chunk: the collective as Scoville times it
        "all-reduce-implementation": [implementations.get("all_reduce", "ring")],
        "all-gather-implementation": [implementations.get("all_gather", "ring")],
        "reduce-scatter-implementation": [implementations.get("reduce_scatter", "ring")],
        "all-to-all-implementation": [implementations.get("all_to_all", "direct")],
        "collective-optimization": "baseline",
        "local-mem-bw": 4800,
        "boost-mode": 0,
        "roofline-enabled": 1 if roofline else 0,
        "peak-perf": 989,
    }
    # ASTRA-sim reads GB/s as 2^30 B/s (network_backend/analytical common/NetworkFunction.cpp)
    # and charges the latency once per hop; its Switch is two hops (NPU -> switch -> NPU).
    network = (f"topology: [ Switch ]\nnpus_count: [ {ranks} ]\n"
               f"bandwidth: [ {bandwidth / 2**30:.6f} ]  # GiB/s as ASTRA-sim reads 'GB/s'\n"
               f"latency: [ {hop_latency * 1e9 / 2:.3f} ]  # ns per hop\n")
    paths = {k: os.path.join(work, v) for k, v in
             {"system": "astra_system.json", "network": "astra_network.yml",
              "memory": "astra_memory.json"}.items()}
    for key, text in (("system", json.dumps(system, indent=2) + "\n"), ("network", network),
                      ("memory", json.dumps({"memory-type": "NO_MEMORY_EXPANSION"}) + "\n")):
        with open(paths[key] + ".tmp", "w") as f:
            f.write(text)
        os.replace(paths[key] + ".tmp", paths[key])
    return paths


def run_astra(binary, prefix, paths, comm_groups):
    cmd = [binary, f"--workload-configuration={os.path.abspath(prefix)}",
           f"--system-configuration={os.path.abspath(paths['system'])}",
           f"--remote-memory-configuration={os.path.abspath(paths['memory'])}",
           f"--network-configuration={os.path.abspath(paths['network'])}"]
    if comm_groups:
        cmd.append(f"--comm-group-configuration={os.path.abspath(comm_groups)}")
    # ASTRA-sim writes log/log.log under its working directory: keep it in the case's folder.
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800,
                       cwd=os.path.dirname(os.path.abspath(paths["system"])))
    out = p.stdout + p.stderr
    finished = [int(c) for c in re.findall(r"sys\[\d+\] finished, (\d+) cycles", out)]
    if p.returncode != 0 or not finished:
        raise RuntimeError(f"ASTRA-sim did not finish ({p.returncode}):\n{out[-3000:]}")
    return max(finished) * 1e-9, len(finished)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scoville", default=os.path.join(ROOT, "build/release/sim/scoville"))
    ap.add_argument("--astra-sim", default=os.environ.get("ASTRA_SIM"))
    ap.add_argument("--astra-examples", default=os.environ.get("ASTRA_SIM_EXAMPLES"))
    ap.add_argument("--system", default=os.path.join(ROOT, "arch/systems/h200-hgx8.yaml"))
    ap.add_argument("--micro-system", help="system for the microbenchmarks (default --system; "
                    "those with more ranks than its chips are skipped)")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--out", default="chakra-interop-out")
    ap.add_argument("--tolerance", type=float, default=0.05)
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    a = ap.parse_args(argv[1:])
    os.makedirs(a.out, exist_ok=True)
    system = os.path.join(a.out, "system-wire-only.yaml")
    wire_only_system(a.system, system)
    bandwidth, hop = local_network(system)
    results, ok = [], True
    for case in a.cases.split(","):
        if case not in CASES:
            print(f"unknown case {case!r}; known: {', '.join(CASES)}", file=sys.stderr)
            return 2
        work = os.path.join(a.out, case)
        run([a.scoville, "trace", *CASES[case].split(), *SHAPE.split(), "--format", "chakra",
             "--system", system, "-o", work])
        prefix = os.path.join(work, "decode")
        mine = json.loads(run([a.scoville, "run", "--system", system, "--json", "--trace-file",
                               prefix]))
        row = {"case": case, "ranks": mine["ranks"], "scoville_step_s": mine["step_time_s"],
               "problems": check_conventions(prefix, mine["ranks"])}
        ok &= not row["problems"]
        if a.astra_sim:
            algos = {}
            for c in sorted(mine["collectives"], key=lambda c: -c["count"]):
                algos.setdefault(c["collective"], ASTRA_IMPLEMENTATION.get(c["algorithm"], "ring"))
            paths = astra_configs(work, bandwidth, hop, mine["ranks"], algos, roofline=False)
            groups = prefix + ".comm_groups.json"
            groups = groups if json.load(open(groups)) else None
            astra, finished = run_astra(a.astra_sim, prefix, paths, groups)
            row.update(astra_step_s=astra, astra_ranks_finished=finished,
                       astra_implementations=algos,
                       relative_difference=(astra - row["scoville_step_s"]) /
                       row["scoville_step_s"])
            row["within_tolerance"] = (finished == mine["ranks"] and
                                       abs(row["relative_difference"]) <= a.tolerance)
            ok &= row["within_tolerance"]
        results.append(row)
    micro = []
    if a.astra_examples:
        for collective in ("all_reduce", "all_to_all", "all_gather", "reduce_scatter"):
            for case_dir in sorted(os.listdir(os.path.join(a.astra_examples, collective))):
                prefix = os.path.join(a.astra_examples, collective, case_dir, collective)
                ranks = len([f for f in os.listdir(os.path.dirname(prefix)) if f.endswith(".et")])
                micro_system = a.micro_system or a.system
                chips = int(re.search(r"\bchips:\s*([0-9]+)", open(micro_system).read()).group(1))
                if ranks > chips:
                    micro.append({"microbenchmark": f"{collective}/{case_dir}", "ranks": ranks,
                                  "skipped": f"the system has {chips} chips"})
                    continue
                mine = json.loads(run([a.scoville, "run", "--system", micro_system, "--json",
                                       "--trace-file", prefix]))
                c = mine["collectives"][0]
                net = json.loads(run([a.scoville, "net", "--system", micro_system, "--json",
                                      "--collective", collective, "--chips", str(mine["ranks"]),
                                      "--bytes", f"{c['network_bytes']:.0f}B"]))
                expected = net["results"][0]["time_s"]
                row = {"microbenchmark": f"{collective}/{case_dir}", "ranks": mine["ranks"],
                       "comm_size": c["comm_size"], "run_s": mine["step_time_s"],
                       "net_s": expected,
                       # scoville net prints 9 significant digits
                       "match": abs(mine["step_time_s"] - expected) <= 1e-8 * expected}
                ok &= row["match"]
                micro.append(row)
    if a.json:
        print(json.dumps({"cases": results, "microbenchmarks": micro, "ok": ok}, indent=2))
    else:
        for r in results:
            line = f"{r['case']:18s} ranks {r['ranks']}  scoville {r['scoville_step_s'] * 1e6:9.2f} us"
            if "astra_step_s" in r:
                line += (f"  astra-sim {r['astra_step_s'] * 1e6:9.2f} us"
                         f"  ({r['relative_difference'] * 100:+.2f}%, "
                         f"{r['astra_ranks_finished']}/{r['ranks']} ranks finished) "
                         f"{'OK' if r['within_tolerance'] else 'FAIL'}")
            print(line)
            for p in r["problems"][:10]:
                print("  convention:", p)
        for m in micro:
            if "skipped" in m:
                print(f"{m['microbenchmark']:28s} skipped: {m['skipped']}")
                continue
            print(f"{m['microbenchmark']:28s} run --system {m['run_s'] * 1e6:9.3f} us  "
                  f"net {m['net_s'] * 1e6:9.3f} us  {'OK' if m['match'] else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
