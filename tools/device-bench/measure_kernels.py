#!/usr/bin/env python3
"""Measure real kernels and the board's energy on one NVIDIA GPU, for Scoville's validation data.

Runs on a machine with a CUDA GPU, PyTorch and nvidia-ml-py (the GPU machine a session may be
lent has all three; tools/device-bench/README.md); nothing in Scoville's build or test suite runs
it. Each test loops one kind of kernel for a fixed time and reads the board's own energy counter
(nvmlDeviceGetTotalEnergyConsumption, millijoules since the driver loaded) before and after, so
its average power is joules over seconds of that loop alone, with the SM and memory clocks and
the temperature sampled every 100 ms beside it. What the figures source (tools/device-bench/README.md):

- idle: the board with a CUDA context and no kernel (the chip file's idle power);
- hbm_copy / hbm_read: HBM streaming, bytes moved per second and joules per byte above idle (the
  energy table's HBM path: device, PHY, L2, NoC);
- decode_gemv_b{1,8,64,256}: BF16 weight streaming as a decode step does it, weights far larger
  than L2, batch rows 1 to 256 (the power of a memory-bound GEMM at the batches the ML.ENERGY rows
  ran: the chip file's power.active and what it leaves out);
- gemm_bf16 / gemm_fp8 / gemm_bf16_zeros: dense 8192^3 products (MAC energy through the power
  balance at the cap; zeros: how much of it is data toggling);
- attention_decode: one decode step's attention over an 8K-token KV cache, batch 64, GQA 64/8.

Usage (device tool, from the repository root there):
    python3 tools/device-bench/measure_kernels.py --out "$OUT" [--seconds 6] [--only NAME ...]
Writes OUT/kernels.csv and OUT/environment.json, each through a temporary file and a rename.
"""

import argparse
import csv
import datetime
import json
import os
import sys
import threading
import time

import pynvml  # nvidia-ml-py
import torch
import torch.nn.functional as F

GIB = 1 << 30
CSV_COLUMNS = [
    "test", "dtype", "shape", "iterations", "seconds", "bytes_per_iteration",
    "flops_per_iteration", "achieved_gb_s", "achieved_tflop_s", "energy_j", "avg_power_w",
    "power_above_idle_w", "sm_clock_mhz_mean", "mem_clock_mhz_mean", "temperature_c_max",
    "throttle_reasons_seen", "note",
]


class BoardSampler:
    """Samples clocks, temperature and throttle reasons every period while a test runs."""

    def __init__(self, handle, period_s=0.1):
        self.handle = handle
        self.period_s = period_s
        self.samples = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        # Renamed "clocks event reasons" in newer NVML bindings; either answers the same bits.
        reasons = getattr(pynvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or getattr(
            pynvml, "nvmlDeviceGetCurrentClocksThrottleReasons")
        while not self._stop.is_set():
            h = self.handle
            try:
                self.samples.append((
                    pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM),
                    pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_MEM),
                    pynvml.nvmlDeviceGetTemperature(h, pynvml.NVML_TEMPERATURE_GPU),
                    reasons(h),
                ))
            except pynvml.NVMLError:
                pass  # a missed sample; the energy counter, which carries the result, is separate
            self._stop.wait(self.period_s)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def summary(self):
        if not self.samples:
            return {"sm": float("nan"), "mem": float("nan"), "temp": float("nan"), "reasons": 0}
        n = len(self.samples)
        reasons = 0
        for s in self.samples:
            reasons |= s[3]
        return {
            "sm": sum(s[0] for s in self.samples) / n,
            "mem": sum(s[1] for s in self.samples) / n,
            "temp": max(s[2] for s in self.samples),
            "reasons": reasons,
        }


def energy_mj(handle):
    return pynvml.nvmlDeviceGetTotalEnergyConsumption(handle)


def timed_loop(handle, step, seconds, warmup_iterations=3):
    """Runs step() back to back for about `seconds`; returns iterations, seconds, joules, board."""
    for _ in range(warmup_iterations):
        step()
    torch.cuda.synchronize()
    # Size a batch of launches so the host checks the clock rarely (the queue stays full).
    t0 = time.perf_counter()
    step()
    torch.cuda.synchronize()
    one = max(time.perf_counter() - t0, 1e-6)
    per_batch = max(1, min(1000, int(0.2 / one)))
    iterations = 0
    with BoardSampler(handle) as sampler:
        e0 = energy_mj(handle)
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            for _ in range(per_batch):
                step()
            iterations += per_batch
            torch.cuda.synchronize()
        elapsed = time.perf_counter() - t0
        e1 = energy_mj(handle)
    return iterations, elapsed, (e1 - e0) / 1000.0, sampler.summary()


def row(test, dtype, shape, result, bytes_per_it, flops_per_it, idle_w, note=""):
    iterations, seconds, joules, board = result
    power = joules / seconds if seconds > 0 else float("nan")
    return {
        "test": test,
        "dtype": dtype,
        "shape": shape,
        "iterations": iterations,
        "seconds": round(seconds, 4),
        "bytes_per_iteration": bytes_per_it,
        "flops_per_iteration": flops_per_it,
        "achieved_gb_s": round(bytes_per_it * iterations / seconds / 1e9, 2) if bytes_per_it else "",
        "achieved_tflop_s": round(flops_per_it * iterations / seconds / 1e12, 2) if flops_per_it else "",
        "energy_j": round(joules, 3),
        "avg_power_w": round(power, 2),
        "power_above_idle_w": round(power - idle_w, 2) if idle_w is not None else "",
        "sm_clock_mhz_mean": round(board["sm"], 1),
        "mem_clock_mhz_mean": round(board["mem"], 1),
        "temperature_c_max": board["temp"],
        "throttle_reasons_seen": hex(board["reasons"]),
        "note": note,
    }


def measure_idle(handle, seconds):
    torch.cuda.synchronize()
    with BoardSampler(handle) as sampler:
        e0 = energy_mj(handle)
        t0 = time.perf_counter()
        time.sleep(seconds)
        elapsed = time.perf_counter() - t0
        e1 = energy_mj(handle)
    return 1, elapsed, (e1 - e0) / 1000.0, sampler.summary()


def tests(handle, seconds, only):
    dev = torch.device("cuda")
    torch.manual_seed(1)
    rows = []

    def wanted(name):
        return not only or any(name.startswith(o) for o in only)

    idle = measure_idle(handle, seconds)
    idle_w = idle[2] / idle[1]
    rows.append(row("idle", "", "", idle, 0, 0, None, "CUDA context, no kernel"))

    if wanted("hbm"):
        n = 4 * GIB // 4  # 4 GiB of float32 per buffer: 60x the 60 MB L2
        a = torch.rand(n, device=dev)
        b = torch.empty_like(a)
        res = timed_loop(handle, lambda: b.copy_(a), seconds)
        rows.append(row("hbm_copy", "fp32", "4 GiB -> 4 GiB", res, 2 * 4 * n, 0, idle_w,
                        "bytes = read + written"))
        res = timed_loop(handle, lambda: a.sum(), seconds)
        rows.append(row("hbm_read", "fp32", "4 GiB sum", res, 4 * n, n, idle_w, "reads only"))
        del a, b
        torch.cuda.empty_cache()

    if wanted("decode_gemv"):
        k, n, layers = 8192, 28672, 8  # 8 x 470 MB of BF16 weights (an FFN up projection each)
        weights = [torch.randn(k, n, device=dev, dtype=torch.bfloat16) * 0.02 for _ in range(layers)]
        for batch in (1, 8, 64, 256):
            x = torch.randn(batch, k, device=dev, dtype=torch.bfloat16)

            def step(x=x):
                for w in weights:
                    torch.matmul(x, w)

            res = timed_loop(handle, step, seconds)
            rows.append(row(f"decode_gemv_b{batch}", "bf16", f"[{batch},{k}]x[{k},{n}] x{layers}",
                            res, 2 * k * n * layers, 2 * batch * k * n * layers, idle_w,
                            "bytes = weights read once per iteration"))
        del weights
        torch.cuda.empty_cache()

    if wanted("gemm"):
        m = 8192
        a = torch.randn(m, m, device=dev, dtype=torch.bfloat16)
        b = torch.randn(m, m, device=dev, dtype=torch.bfloat16)
        res = timed_loop(handle, lambda: torch.matmul(a, b), seconds)
        rows.append(row("gemm_bf16", "bf16", f"{m}^3", res, 3 * 2 * m * m, 2 * m ** 3, idle_w,
                        "random normal operands"))
        az, bz = torch.zeros_like(a), torch.zeros_like(b)
        res = timed_loop(handle, lambda: torch.matmul(az, bz), seconds)
        rows.append(row("gemm_bf16_zeros", "bf16", f"{m}^3", res, 3 * 2 * m * m, 2 * m ** 3,
                        idle_w, "zero operands: no data toggling"))
        del az, bz
        try:
            a8 = a.to(torch.float8_e4m3fn)
            b8 = b.t().contiguous().to(torch.float8_e4m3fn).t()  # column-major, as _scaled_mm needs
            one = torch.tensor(1.0, device=dev)
            res = timed_loop(handle, lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one,
                                                                  out_dtype=torch.bfloat16), seconds)
            rows.append(row("gemm_fp8", "fp8_e4m3", f"{m}^3", res, 2 * m * m + 2 * m * m,
                            2 * m ** 3, idle_w, "torch._scaled_mm, per-tensor scales"))
        except (RuntimeError, TypeError, AttributeError) as e:
            rows.append({"test": "gemm_fp8", "note": f"not run: {e}"})
        del a, b
        torch.cuda.empty_cache()

    if wanted("attention"):
        batch, heads, kv_heads, ctx, dim = 64, 64, 8, 8192, 128
        q = torch.randn(batch, heads, 1, dim, device=dev, dtype=torch.bfloat16)
        kc = torch.randn(batch, kv_heads, ctx, dim, device=dev, dtype=torch.bfloat16)
        vc = torch.randn(batch, kv_heads, ctx, dim, device=dev, dtype=torch.bfloat16)
        try:
            res = timed_loop(handle, lambda: F.scaled_dot_product_attention(q, kc, vc,
                                                                            enable_gqa=True),
                             seconds)
            kv_bytes = 2 * batch * kv_heads * ctx * dim * 2
            rows.append(row("attention_decode", "bf16",
                            f"b{batch} h{heads}/{kv_heads} ctx{ctx} d{dim}", res, kv_bytes,
                            4 * batch * heads * ctx * dim, idle_w, "bytes = K and V read once"))
        except (RuntimeError, TypeError) as e:
            rows.append({"test": "attention_decode", "note": f"not run: {e}"})
    return rows


def environment(handle):
    def safe(f, *args):
        try:
            return f(*args)
        except pynvml.NVMLError as e:
            return f"unavailable: {e}"

    def text(v):
        return v.decode() if isinstance(v, bytes) else v

    return {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "gpu": text(pynvml.nvmlDeviceGetName(handle)),
        "driver": text(pynvml.nvmlSystemGetDriverVersion()),
        "torch": torch.__version__,
        "cuda_runtime": torch.version.cuda,
        "power_limit_mw": safe(pynvml.nvmlDeviceGetPowerManagementLimit, handle),
        "enforced_power_limit_mw": safe(pynvml.nvmlDeviceGetEnforcedPowerLimit, handle),
        "max_sm_clock_mhz": safe(pynvml.nvmlDeviceGetMaxClockInfo, handle, pynvml.NVML_CLOCK_SM),
        "max_mem_clock_mhz": safe(pynvml.nvmlDeviceGetMaxClockInfo, handle, pynvml.NVML_CLOCK_MEM),
        "multiprocessors": torch.cuda.get_device_properties(0).multi_processor_count,
        "memory_bytes": torch.cuda.get_device_properties(0).total_memory,
        "method": "NVML total-energy counter deltas over each loop; clocks, temperature and "
                  "throttle reasons sampled every 100 ms",
    }


def write_atomically(path, write):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", newline="") as f:
        write(f)
    os.replace(tmp, path)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="folder for kernels.csv and environment.json")
    p.add_argument("--seconds", type=float, default=6.0, help="time each test loops (default 6)")
    p.add_argument("--only", nargs="*", default=[], help="test name prefixes to run")
    args = p.parse_args()
    if not torch.cuda.is_available():
        sys.exit("measure_kernels.py: no CUDA device visible to PyTorch")
    if args.seconds <= 0:
        sys.exit("measure_kernels.py: --seconds must be positive")
    os.makedirs(args.out, exist_ok=True)
    pynvml.nvmlInit()
    try:
        handle = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
        env = environment(handle)
        rows = tests(handle, args.seconds, args.only)
    finally:
        pynvml.nvmlShutdown()

    def write_csv(f):
        w = csv.DictWriter(f, fieldnames=CSV_COLUMNS, restval="")
        w.writeheader()
        for r in rows:
            w.writerow(r)

    write_atomically(os.path.join(args.out, "kernels.csv"), write_csv)
    write_atomically(os.path.join(args.out, "environment.json"),
                     lambda f: json.dump(env, f, indent=1))
    for r in rows:
        print(",".join(str(r.get(c, "")) for c in CSV_COLUMNS))


if __name__ == "__main__":
    main()
