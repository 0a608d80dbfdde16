#!/usr/bin/python3
"""tools/library-gemms on made-up tables in the published formats: AITER rows of the wrong GPU,
CU count, weight type or shape are skipped and the fastest of duplicate rows is kept; DeepGEMM's
TFLOP/s become times; every shape is priced by the real chip-bench and the summary is the
geometric mean of model / measured per chip, set and row band; a missing table or a malformed row
exits 2 naming the file (and line).
usage: library_gemms_test.py SCOVILLE SOURCE_DIR WORKDIR
"""
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tool_module  # noqa: E402

SCOVILLE, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
TOOL = os.path.join(SOURCE, "tools/library-gemms")
lib = tool_module.load(SOURCE, "tools/library-gemms", "library_gemms")
check = tool_module.Checks()

aiter = os.path.join(WORK, "aiter")
files = {
    "aiter/configs/model_configs/a8w8_blockscale_tuned_gemm_ds_v3.csv":
        "gfx,cu_num,M,N,K,libtype,kernelId,splitK,us,kernelName,tflops,bw,errRatio\n"
        "gfx942,304,64,256,7168,ck,1,0,10.0,k,0,0,0\n"
        "gfx942,304,64,256,7168,ck,2,0,12.0,k,0,0,0\n"      # slower duplicate: dropped
        "gfx942,80,64,256,7168,ck,1,0,30.0,k,0,0,0\n"       # MI308 (80 CUs): skipped
        "gfx942,304,32,256,7168,ck,1,0,9.0,k,0,0,0\n",      # a row count not compared: skipped
    "aiter/configs/a8w8_tuned_gemm.csv":
        "gfx,cu_num,M,N,K,q_dtype_w,kernelId,splitK,us,kernelName,tflops,bw,errRatio\n"
        "gfx950,256,64,8192,8192,torch.float8_e4m3fn,1,0,20.0,k,0,0,0\n"
        "gfx950,256,64,8192,8192,torch.int8,1,0,5.0,k,0,0,0\n"      # INT8: skipped
        "gfx950,256,64,4096,4096,torch.float8_e4m3fn,1,0,5.0,k,0,0,0\n",  # not a Llama shape
    "aiter/configs/a4w4_blockscale_tuned_gemm.csv":
        "gfx,cu_num,M,N,K,kernelId,splitK,us,kernelName,tflops,bw,errRatio\n"
        "gfx950,256,16,10240,8192,1,0,16.0,k,0,0,0\n",
}
for rel, text in files.items():
    os.makedirs(os.path.dirname(os.path.join(aiter, rel)), exist_ok=True)
    with open(os.path.join(aiter, rel), "w") as f:
        f.write(text)
readme = os.path.join(WORK, "README.md")
with open(readme, "w") as f:
    f.write("### Normal GEMMs for dense models\n\n| M | N | K | Computation | Memory | Speedup |\n"
            "|:-:|:-:|:-:|:-:|:-:|:-:|\n| 64 | 2112 | 7168 | 206 TFLOPS | 1688 GB/s | 2.7x |\n"
            "\n### Grouped GEMMs\n| 4 | 8192 | 4096 | 7168 | 1346 TFLOPS |\n")

rows = lib.aiter_rows(aiter)
check(rows == [("mi300x", "fp8", "AITER FP8 block-scale", 64, 256, 7168, 10.0),
               ("mi355x", "fp8", "AITER FP8 row-wise", 64, 8192, 8192, 20.0),
               ("mi355x", "mxfp4", "AITER MXFP4", 16, 10240, 8192, 16.0)],
      "the kept AITER rows: %s" % rows)
dg = lib.deepgemm_rows(readme)
check(len(dg) == 1 and dg[0][:6] == ("h100", "fp8", "DeepGEMM FP8 (H800)", 64, 2112, 7168),
      "one DeepGEMM row, the grouped table not read: %s" % dg)
check(abs(dg[0][6] - 2 * 64 * 2112 * 7168 / 206e12 * 1e6) < 1e-9, "time from TFLOP/s: %s" % dg)

out = subprocess.run([TOOL, "--scoville", SCOVILLE, "--aiter", aiter, "--deepgemm-readme", readme,
                      "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
check(out.returncode == 0, "exit 0: %s" % out.stderr)
got = json.loads(out.stdout) if out.returncode == 0 else {"shapes": [], "summary": []}
check(len(got["shapes"]) == 4, "four shapes priced: %s" % got["shapes"])
for s in got["shapes"]:
    check(s["model_us"] > 0 and abs(s["model_over_measured"] - s["model_us"] / s["measured_us"])
          < 1e-9, "model / measured of %s" % s)
    weights = s["n"] * s["k"] * {"fp8": 1.0, "mxfp4": 4.25 / 8}[s["precision"]]
    check(abs(s["measured_weight_tb_s"] - weights / s["measured_us"] / 1e6) < 1e-9,
          "measured weight bandwidth of %s" % s)
check([(s["chip"], s["rows"], s["shapes"]) for s in got["summary"]] ==
      [("h100", "1-128", 1), ("mi300x", "1-128", 1), ("mi355x", "1-128", 1),
       ("mi355x", "1-128", 1)], "one summary line per chip, set and band: %s" % got["summary"])
for s in got["summary"]:
    check(abs(s["geomean_model_over_measured"] - s["min"]) < 1e-12, "one shape: mean = it: %s" % s)

# Bad input: exit 2, the file named (and the line of a malformed row).
missing = subprocess.run([TOOL, "--scoville", SCOVILLE, "--aiter", os.path.join(WORK, "none")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
check(missing.returncode == 2 and "a8w8_blockscale_tuned_gemm_ds_v3.csv" in missing.stderr,
      "a missing table: exit 2, named: %s" % missing.stderr)
with open(os.path.join(aiter, "aiter/configs/a8w8_tuned_gemm.csv"), "a") as f:
    f.write("gfx950,256,64,8192,x,torch.float8_e4m3fn,1,0,20.0,k,0,0,0\n")
bad = subprocess.run([TOOL, "--scoville", SCOVILLE, "--aiter", aiter],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
check(bad.returncode == 2 and "a8w8_tuned_gemm.csv:5" in bad.stderr,
      "a malformed row: exit 2, file and line: %s" % bad.stderr)
with open(readme, "w") as f:
    f.write("# DeepGEMM\nno table here\n")
nodg = subprocess.run([TOOL, "--scoville", SCOVILLE, "--deepgemm-readme", readme],
                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
check(nodg.returncode == 2 and "README.md" in nodg.stderr, "no table: exit 2: %s" % nodg.stderr)
check(math.isclose(lib.BYTES_PER_WEIGHT["mxfp4"], 4.25 / 8), "MXFP4 with its block scales")
check.finish("library_gemms")
