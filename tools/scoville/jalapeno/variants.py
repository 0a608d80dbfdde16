"""The input files the Jalapeño study generates under its work folder: model and chip/system
variants (a YAML value replaced, comments kept), disaggregated mappings, Jalapeño's transferred
calibration overlay and its overhead-sweep copies. Each is written only when its text changes,
atomically, because the runs hash their input files' content into their cache keys.
"""

import os
import re

from scoville import units

from . import study
from .study import CALIBRATION_SYSTEM, NOMINAL_TILE, ROOT, TRANSFERRED_KNOBS


def set_yaml_value(text, dotted, value, tag, add_missing=False):
    """`text` with the block-style key `dotted` (a.b.c) set to `value`; comments elsewhere kept.
    A missing key is an error (a misspelt one would change nothing), unless `add_missing`: then
    a key its parent block lacks is added as the block's last entry (e.g. a precision the model
    file leaves to its default)."""
    keys = dotted.split(".")
    lines = text.split("\n")
    stack = []
    parent_end = None  # (index of the parent block's last line, its children's indent)
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*)([A-Za-z0-9_]+):(.*)$", line)
        if not m:
            continue
        indent = len(m.group(1))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, m.group(2)))
        path = [k for _, k in stack]
        if path == keys:
            lines[i] = f"{m.group(1)}{m.group(2)}: {value}  # {tag}"
            return "\n".join(lines)
        if len(keys) > 1 and len(path) >= len(keys) and path[:len(keys) - 1] == keys[:-1]:
            child_indent = (m.group(1) if len(path) == len(keys) else parent_end[1])
            parent_end = (i, child_indent)  # the block's last line so far, at any depth
    if parent_end is None or not add_missing:
        raise KeyError(dotted)
    i, indent = parent_end
    lines.insert(i + 1, f"{indent}{keys[-1]}: {value}  # {tag}")
    return "\n".join(lines)


def write_input_file(path, text):
    """Writes a generated input file only when its text changed, through a temporary file and
    a rename. Runs hash their input files' content into their keys on worker threads, so a
    file rewritten in place could be hashed half-written (the likely cause of a CI failure in
    which a rerun found one run missing)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return path
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)
    return path


def write_variant(work, name, source, changes, tag="[ASSUMPTION] jalapeno-study variant",
                  add_missing=False):
    with open(os.path.join(ROOT, source)) as f:
        text = f.read()
    for dotted, value in changes:
        text = set_yaml_value(text, dotted, value, tag, add_missing)
    return write_input_file(os.path.join(work, "variants", name), text)


def unfused_software(work):
    """Jalapeño's stack with its vector ops as kernels of their own (the `fusion` attribution
    knob): arch/software/<its stack>.yaml with fused_vector_ops false, every other value its own."""
    stack = study.SOFTWARE["jalapeno"]
    return write_variant(work, f"{stack}-unfused.yaml", f"arch/software/{stack}.yaml",
                         [("software.fused_vector_ops", "false")])


def inherited_overlays(path):
    """The overlays `path` inherits from, nearest first (as resolved_knobs follows them)."""
    import yaml
    out = []
    while True:
        with open(path) as f:
            parent = (yaml.safe_load(f) or {}).get("calibration", {}).get("inherits")
        if not parent:
            return out
        suffix = ".op-table.calibration.yaml" if path.endswith(".op-table.calibration.yaml") \
            else ".calibration.yaml"
        path = os.path.join(os.path.dirname(path), parent + suffix)
        if path in out or not os.path.exists(path):  # scoville reports these; not the key's job
            return out
        out.append(path)


def resolved_knobs(path, seen=()):
    """An overlay's knobs in effect, as scoville reads them: `inherits:` followed to the overlay
    with knobs of its own, then each `overrides:` applied on the way back (a fraction map may
    name only some classes)."""
    import yaml
    with open(path) as f:
        c = yaml.safe_load(f)["calibration"]
    if not c.get("inherits"):
        if not c.get("knobs"):
            raise SystemExit(f"jalapeno-study: {path} holds no knobs and inherits none")
        return {k: (dict(v) if isinstance(v, dict) else v) for k, v in c["knobs"].items()}
    # `inherits:` stays within one fidelity: the parent's file has this one's suffix.
    suffix = ".op-table.calibration.yaml" if path.endswith(".op-table.calibration.yaml") \
        else ".calibration.yaml"
    parent = os.path.join(os.path.dirname(path), c["inherits"] + suffix)
    if parent in seen or parent == path:
        raise SystemExit(f"jalapeno-study: {path} inherits in a cycle")
    knobs = resolved_knobs(parent, seen + (path,))
    for k, v in (c.get("overrides") or {}).items():
        knobs[k] = {**knobs.get(k, {}), **v} if isinstance(v, dict) else v
    return knobs


def stack_calibration(stack):
    """The software knobs of arch/software/`stack` at the run's fidelity, as scoville applies
    them: (the stack calibration's path relative to ROOT, {knob: total}) where the total is the
    stack file's own per_op_launch / per_iteration / per_sequence plus the fitted knob, in
    seconds; (None, {}) where the stack has no calibration at this fidelity."""
    import yaml
    infix = "" if study.FIDELITY == "roofline" else "." + study.FIDELITY
    rel = f"arch/software/{stack}{infix}.calibration.yaml"
    if not os.path.exists(os.path.join(ROOT, rel)):
        return None, {}
    with open(os.path.join(ROOT, rel)) as f:
        fitted = yaml.safe_load(f)["stack_calibration"].get("knobs") or {}
    with open(os.path.join(ROOT, "arch", "software", stack + ".yaml")) as f:
        own = yaml.safe_load(f)["software"]
    pairs = {"per_op_overhead": "per_op_launch", "per_iteration_overhead": "per_iteration",
             "per_sequence_overhead": "per_sequence"}
    return rel, {knob: seconds(own.get(base, "0 s")) + seconds(fitted.get(knob, "0 s"))
                 for knob, base in pairs.items()}


def seconds(text):
    """A YAML duration in seconds (scoville.units.seconds); a value that is none stops the study."""
    value = units.seconds(text)
    if value is None:
        raise SystemExit(f"jalapeno-study: {text!r} is not a duration")
    return value


def transferred_overlay(work):
    """Jalapeño's overlay at the run's fidelity: study.calibration_source()'s hardware-efficiency
    knobs, no fitted overheads. Returns (path, the knobs taken, all the source's knobs). Without
    a source overlay the file holds no efficiency knobs (the chip model's or the peaks' times):
    the headline then runs Jalapeño with --no-calibration, and only the overhead sweep uses the
    file, as the base its per-iteration overhead is added to."""
    fidelity = study.FIDELITY
    source = study.calibration_source()
    system = CALIBRATION_SYSTEM
    knobs = resolved_knobs(os.path.join(ROOT, source)) if source else {}
    taken = {k: knobs[k] for k in TRANSFERRED_KNOBS if k in knobs}
    tag = f"[ASSUMPTION] transferred from {system}'s overlay"
    head = (f"# Generated by tools/jalapeno-study: the hardware-efficiency knobs in effect on "
            f"{system}\n# ({source}) transferred to Jalapeño, which has no measurements; the "
            "fitted\n# per-iteration overhead is the GPUs' software stack and is left out (0 s)."
            if source else
            f"# Generated by tools/jalapeno-study: "
            f"{study.overlay_file(system, fidelity)} does not "
            "exist, so no\n# efficiency knobs (the times at the " + fidelity + " fidelity "
            "as they are); the base of the\n# overhead sweep's overlays.")
    lines = [*head.split("\n"), "calibration:", "  system: jalapeno-128  # the "
             "system it is applied to (by --calibration)",
             f"  fidelity: {fidelity}  # the fidelity of the knobs (scoville refuses "
             "another)",
             "  knobs:"]
    for k, per_class in taken.items():
        lines.append(f"    {k}:")
        for cls, v in per_class.items():
            lines.append(f"      {cls}: {v}  # {tag}")
    lines += ["    per_op_overhead: 0 s  # [ASSUMPTION] persistent kernels (software profile)",
              "    per_iteration_overhead: 0 s  # [ASSUMPTION] persistent kernels (software "
              "profile)", ""]
    text = "\n".join(lines)
    path = write_input_file(
        os.path.join(work, "variants", "jalapeno-transferred.calibration.yaml"), text)
    return path, taken, knobs


def mtp_model(work, model):
    """DeepSeek R1 with its checkpoint's MTP module priced ([SPEC] num_nextn_predict_layers 1)."""
    if model != "deepseek-r1":
        return model
    return write_variant(work, "deepseek-r1-mtp.yaml", "workloads/models/deepseek-r1.yaml",
                         [("mtp_layers", 1), ("name", "deepseek-r1-mtp")])


def deployed_model(work, key, model, mtp):
    """The workload's model as its GPU comparator's engine runs the checkpoint (study.
    DEPLOYED_COMPARATORS' `precision`), with DeepSeek R1's MTP module priced when the recipe
    runs MTP."""
    deployed = study.DEPLOYED_COMPARATORS[key]
    changes = list(deployed["precision"])
    name = f"{model}-{deployed['variant']}"
    if mtp:
        changes.append(("mtp_layers", 1))
        name += "-mtp"
    changes.append(("name", name))
    tag = f"[SPEC] {deployed['checkpoint']} (jalapeno-study: the GPU comparator's checkpoint)"
    # a precision the model file leaves to its default (GPT-OSS's mlp_activations) is added
    return write_variant(work, f"{name}.yaml", f"workloads/models/{model}.yaml", changes, tag=tag,
                         add_missing=True)


def deployed_mapping(work, prefill, decode, experts):
    """A recipe's pools (study.DEPLOYED_COMPARATORS: `workers` x `gpus`, attention data parallel
    on every GPU or one attention group per worker): experts over each worker's GPUs, so a pool
    of several workers runs `workers` expert replicas (docs/mapping.md). The pool is one engine
    whose attention groups step together, where the workers step independently: at the
    throughput end, every worker busy, the difference is each step waiting for its slowest
    group, each filling its own token budget. Measured on Kimi K2.5 NVFP4 prefill (GB300, its
    overlay, 80-100 % x 8,192-token prompts, 16,384 tokens per rank): 4 x DEP4 as one pool
    19,092 input tok/s per GPU against one DEP4 worker's 19,408 (-1.6 %)."""
    lines = []
    for phase, pool in (("prefill", prefill), ("decode", decode)):
        workers, gpus, _ = pool
        if experts % gpus:
            raise SystemExit(f"jalapeno-study: {experts} experts do not split over {gpus} GPUs")
        chips = workers * gpus
        lines.append(f"  {phase}: {{chips: {chips}, tp: {chips}, ep: {gpus}, "
                     f"attn_dp: {study.attention_ranks(pool)}}}\n")
    tag = "-".join(f"{p}{study.pool_label(pool).replace(' ', '')}"
                   for p, pool in (("p", prefill), ("d", decode)))
    return write_input_file(os.path.join(work, "variants", f"deployed-{tag}.yaml"),
                            "mapping:\n" + "".join(lines))


def disagg_mapping(work, prefill_chips, row, moe):
    tp, ep, attn = int(row["tp"]), int(row["ep"]), int(row["attn_dp"])
    p_ep = prefill_chips if moe and prefill_chips > 1 else 1
    text = ("mapping:\n"
            f"  prefill: {{chips: {prefill_chips}, tp: {prefill_chips}, ep: {p_ep}}}\n"
            f"  decode: {{chips: {tp}, tp: {tp}, ep: {ep}, attn_dp: {attn}}}\n")
    return write_input_file(
        os.path.join(work, "variants", f"disagg-p{prefill_chips}-d{tp}-{ep}-{attn}.yaml"), text)


def grid_files(work, point):
    hbm, cap, cx, lbw, lns, sram, tiles = (point[k] for k in (
        "hbm_tb_s", "hbm_gb", "compute_x", "link_gb_s", "link_ns", "sram_mib", "tiles"))
    tag = f"h{hbm}-c{cap}-x{cx}-b{lbw}-l{lns}-s{sram}-t{tiles}"
    n = NOMINAL_TILE
    per_die = n["count"] / tiles  # a tile's share of the die against the nominal tile's
    sram_x = sram / (n["count"] * n["tile_sram_mib"] + n["shared_sram_mib"])
    cols = int(round(n["cols"] * cx * per_die))
    chip = write_variant(work, f"grid/jalapeno-{tag}.yaml", "arch/chips/jalapeno.yaml", [
        ("chip.name", f"jalapeno-{tag}"),
        # 8 stacks x 16 channels
        ("chip.hbm.bandwidth_per_channel", f"{hbm * 1000 / 128:g} GB/s"),
        ("chip.hbm.capacity", f"{cap} GB"),
        # The matrix peak scales with the array width, at every precision; `tiles` keeps the
        # die's totals (peak, vector rate, SRAM, SRAM bandwidth) and changes only their split.
        ("chip.tiles.count", tiles),
        ("chip.tiles.matrix_engine.cols", cols),
        # fill + drain of the array, rows + cols, as the chip file says
        ("chip.tiles.matrix_engine.pipeline_latency_cycles", n["rows"] + cols),
        ("chip.tiles.vector_unit.flops_per_cycle", int(round(n["vector_flops_per_cycle"]
                                                             * per_die))),
        ("chip.tiles.sram", f"{n['tile_sram_mib'] * 1024 * sram_x * per_die:g} KiB"),
        ("chip.tiles.sram_bandwidth", f"{n['sram_bandwidth_tb_s'] * 1000 * per_die:g} GB/s"),
        ("chip.shared_sram.capacity", f"{n['shared_sram_mib'] * sram_x:g} MiB"),
        ("chip.shared_sram.banks", tiles)])  # one bank per tile, as the chip file says
    system = write_variant(work, f"grid/jalapeno-128-{tag}.yaml", "arch/systems/jalapeno-128.yaml", [
        ("system.network.local.link.bandwidth_per_lane", f"{lbw} GB/s"),
        ("system.network.local.link.latency", f"{lns} ns")])
    return chip, system



def overhead_overlay(work, base_overlay, ms):
    """The transferred overlay with `ms` of per-iteration software overhead on Jalapeño."""
    with open(base_overlay) as f:
        text = f.read()
    text, n = re.subn(r"per_iteration_overhead: 0 s  #[^\n]*",
                      f"per_iteration_overhead: {ms:g} ms  # [ASSUMPTION] jalapeno-study "
                      "overhead sweep", text)
    if n != 1:
        raise SystemExit(f"jalapeno-study: {base_overlay} holds no zero per-iteration overhead")
    return write_input_file(
        os.path.join(work, "variants", f"jalapeno-overhead-{ms:g}ms.calibration.yaml"), text)


