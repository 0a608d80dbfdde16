"""Running scoville for the Jalapeño study: the `scoville inferencex` command line of a run
(system, model, mapping, calibration, fidelity), and the Runner that runs them in parallel and
keeps each output in a cache under the work folder, keyed by the command line, the binary and
the content of its input files, so a rerun reads unchanged runs back.
"""

import concurrent.futures
import hashlib
import os
import re
import subprocess
import time

from scoville.io import ResultFile

from . import study
from .study import MTP_ACCEPTANCE, MTP_DEPTH, ISL, OSL, RUBIN, ROOT, SOFTWARE, SYSTEM_CHIPS
from .variants import disagg_mapping, inherited_overlays, mtp_model


class Runner:
    def __init__(self, binary, work, jobs, fresh):
        self.binary = os.path.abspath(binary)
        if not os.access(self.binary, os.X_OK):
            raise SystemExit(f"jalapeno-study: no scoville binary at {self.binary} "
                             "(build it: cmake --build build/release --target scoville)")
        self.work = work
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs))
        self.fresh = fresh
        st = os.stat(self.binary)
        self.stamp = f"{st.st_size}-{st.st_mtime_ns}"
        self.env = dict(os.environ, SCOVILLE_DATA_DIR=ROOT,
                        SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
        self.runs = 0
        self.failures = []
        self.submitted = {}
        # The fidelities the outputs say they ran at, for the report (set.add is atomic under
        # the GIL); each frame also carries its output's fidelity and calibration in .attrs.
        self.fidelities = set()

    def _key(self, args):
        h = hashlib.sha256(("\0".join(args) + self.stamp).encode())
        for a in args:  # generated and committed input files: their content counts
            if a.endswith(".yaml") and os.path.exists(a):
                with open(a, "rb") as f:
                    h.update(f.read())
            if a.endswith(".calibration.yaml") and os.path.exists(a):
                for parent in inherited_overlays(a):  # the knobs an overlay inherits count too
                    with open(parent, "rb") as f:
                        h.update(f.read())
        return h.hexdigest()[:16]

    def submit(self, args, timeout=None):
        """args: inferencex options (without -o). Returns a future of a DataFrame (or None);
        the same command submitted twice runs once. A run past `timeout` s counts as failed."""
        key = tuple(args)
        if key not in self.submitted:
            self.submitted[key] = self.pool.submit(self._run, list(args), timeout)
        return self.submitted[key]

    def _run(self, args, timeout=None):
        key = self._key(args)
        out = os.path.join(self.work, "runs", key + ".h5")
        marker = out[:-3] + ".timeout"  # an earlier invocation gave up on this run
        if not self.fresh and os.path.exists(marker) and not os.path.exists(out):
            self.failures.append((" ".join(args), "timeout", open(marker).read().strip()))
            return None
        if self.fresh or not os.path.exists(out):
            os.makedirs(os.path.dirname(out), exist_ok=True)
            cmd = [self.binary, "inferencex", *args, "--quiet", "-o", out]
            started = time.time()
            try:
                proc = subprocess.run(cmd, cwd=ROOT, env=self.env, capture_output=True,
                                      text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                self.runs += 1
                why = f"stopped after {timeout:.0f} s (--wide-timeout)"
                with open(marker, "w") as f:
                    f.write(why + "\n")
                self.failures.append((" ".join(args), "timeout", why))
                return None
            self.runs += 1
            # Where an invocation's time goes (and how far it got): one line per run.
            with open(os.path.join(self.work, "runs.log"), "a") as f:
                f.write(f"{time.strftime('%H:%M:%S')} {time.time() - started:7.1f} s "
                        f"exit {proc.returncode} {key} {' '.join(args)}\n")
            if proc.returncode != 0:
                self.failures.append((" ".join(args), proc.returncode,
                                      (proc.stderr or proc.stdout).strip()[-300:]))
                return None
        with ResultFile(out) as f:
            attrs = f.provenance
            fidelity = attrs.get("fidelity", "unknown")
            self.fidelities.add(fidelity)
            # scoville ignored --fidelity: the study would mix levels
            if fidelity != study.FIDELITY:
                self.failures.append((" ".join(args), "fidelity",
                                      f"ran at {fidelity}, not {study.FIDELITY}"))
                return None
            frame = f.table("points")
            frame.attrs.update(fidelity=fidelity, calibration=attrs.get("calibration", "?"))
            return frame


def base_args(model, system, chips, software, concurrency, prompts, chip=None, mtp=False,
              cal=(), isl=ISL, osl=OSL):
    """`cal`: the calibration options (--no-calibration, --calibration FILE, or none: the
    system file's own overlay, given explicitly: own_calibration)."""
    cal = list(cal) or study.own_calibration(system)
    args = ["--system", system, "--model", model, "--isl", str(isl), "--osl", str(osl),
            "--chips", str(chips), "--software", software,
            "--concurrency", ",".join(str(c) for c in concurrency),
            "--prompts-per-client", str(prompts), "--fidelity", study.FIDELITY, *cal]
    if chip:
        args += ["--chip", chip]
    if mtp:
        args += ["--mtp-depth", str(MTP_DEPTH), "--mtp-acceptance", str(MTP_ACCEPTANCE)]
    return args


def side_args(s, work, w, side, concurrency, prompts, cal, chips=None):
    """One workload's side as its baseline runs it: "jalapeno" (jalapeno-128 with Jalapeño's
    software) or "gpu" (the workload's GPU system with the GPU software, and the MTP model
    when the workload gives the GPUs MTP). `chips`: the chips option (default s.chips of the
    system's size)."""
    if side == "jalapeno":
        return base_args(w["model"], "jalapeno-128", chips or s.chips(128), SOFTWARE["jalapeno"],
                         concurrency, prompts, cal=cal)
    gpu_model = mtp_model(work, w["model"]) if w["gpu_mtp"] else w["model"]
    return base_args(gpu_model, w["gpu"], chips or s.chips(72), SOFTWARE["gpu"], concurrency,
                     prompts, mtp=w["gpu_mtp"], cal=cal)


def mapping_args(row, work):
    """The options that rerun a points row's mapping: --tp/--ep/--attn-dp, or for a
    disaggregated row (label prefill:tpP...+decode:...) a generated --mapping file."""
    m = re.match(r"^prefill:tp(\d+)", str(row["mapping"]))
    if m:
        return ["--mapping", disagg_mapping(work, int(m.group(1)), row, moe=True)]
    args = ["--tp", str(int(row["tp"]))]
    if int(row["ep"]) > 1:
        args += ["--ep", str(int(row["ep"]))]
    if int(row["attn_dp"]) > 1:
        args += ["--attn-dp", str(int(row["attn_dp"]))]
    return args


def collect(futures):
    """{key: future} -> {key: frame} of the runs that gave points."""
    out = {}
    for key, fut in futures.items():
        frame = fut.result()
        if frame is not None and len(frame):
            out[key] = frame
    return out


def resolve(futs):
    """{key: {name: future}} -> {key: {name: frame or None}}."""
    return {key: {name: f.result() for name, f in entry.items()} for key, entry in futs.items()}


def rubin_args(s, work, w, concurrency, prompts, cal):
    """The workload on Vera Rubin as its GPU baseline runs it (software, MTP model and depth)."""
    gpu_model = mtp_model(work, w["model"]) if w["gpu_mtp"] else w["model"]
    return base_args(gpu_model, RUBIN, s.chips(SYSTEM_CHIPS[RUBIN]), SOFTWARE["gpu"],
                     concurrency, prompts, mtp=w["gpu_mtp"], cal=cal)


