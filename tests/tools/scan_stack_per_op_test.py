#!/usr/bin/python3
"""tools/energy-validation/scan_stack_per_op.py: the stack copy it predicts with carries the
per-op time asked for and the stack's fitted per-iteration and per-sequence times folded in (a
renamed copy would not find its calibration file), with the rest of the file untouched; and a
short scan on two made-up rows runs scoville and prints one line per per-op time.
usage: scan_stack_per_op_test.py SCOVILLE SOURCE_DIR WORKDIR
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(sys.argv[2], "tools/energy-validation"))
import tool_module  # noqa: E402

scan = tool_module.load(sys.argv[2], "tools/energy-validation/scan_stack_per_op.py", "scan")
check = tool_module.Checks()

check(abs(scan.knob_us("  per_iteration: 0.2 ms  # x", "per_iteration") - 200.0) < 1e-9,
      "0.2 ms is 200 us")
check(abs(scan.knob_us("a: 1 us\n  per_op_launch: 2.5e-06 s", "per_op_launch") - 2.5) < 1e-9,
      "2.5e-06 s is 2.5 us")
check(scan.knob_us("other: 1 us", "per_iteration") == 0.0, "an absent key is 0")

source = open(os.path.join(sys.argv[2], "arch/software/vllm.yaml")).read()
fitted = open(os.path.join(sys.argv[2], "arch/software/vllm.op-table.calibration.yaml")).read()
with tempfile.TemporaryDirectory() as tmp:
    text = open(scan.stack_file("vllm", 3.25, tmp)).read()
check(abs(scan.knob_us(text, "per_op_launch") - 3.25) < 1e-9, "per_op_launch set to 3.25 us")
check(abs(scan.knob_us(text, "per_iteration") - (scan.knob_us(source, "per_iteration") +
                                                 scan.knob_us(fitted, "per_iteration_overhead")))
      < 1e-6, "per_iteration = the file's own + the fitted knob")
check(abs(scan.knob_us(text, "per_sequence") - (scan.knob_us(source, "per_sequence") +
                                                scan.knob_us(fitted, "per_sequence_overhead")))
      < 1e-6, "per_sequence = the file's own + the fitted knob")
check("top_p_sampler: full-sort" in text, "the rest of the stack file is kept")
check(text.count("\n") == source.count("\n"), "no line added or lost")

# Two batch-8 rows (Llama 3.1 8B on one H100 and one B200): one output line per per-op time,
# and a larger per-op time gives a longer simulated ITL.
header = ("id,source,covers,gpu,system,chips,tp,ep,model,precision,task,max_num_seqs,"
          "avg_batch_size,isl,avg_output_len,output_tok_s,avg_power_w,energy_per_token_j,"
          "median_itl_ms,framework,sampling\n")
rows = ("T1,src,gpu,H100,h100-hgx8,1,1,1,llama-3.1-8b,,chat,8,8,64,32,1,1,1,7.3,vLLM,greedy\n"
        "T2,src,gpu,B200,b200-hgx8,1,1,1,llama-3.1-8b,,chat,64,64,64,32,1,1,1,9.0,vLLM,greedy\n")
os.makedirs(sys.argv[3], exist_ok=True)
csv_path = os.path.join(sys.argv[3], "rows.csv")
with open(csv_path, "w") as f:
    f.write(header + rows)
env = dict(os.environ, SCOVILLE_DATA_DIR=sys.argv[2])
done = subprocess.run(["/usr/bin/python3", os.path.join(
    sys.argv[2], "tools/energy-validation/scan_stack_per_op.py"), "--scoville", sys.argv[1],
    "--rows", csv_path, "--per-op", "0.5,4"], capture_output=True, text=True, env=env)
check(done.returncode == 0, "the scan runs: " + done.stderr[-300:])
lines = [line for line in done.stdout.splitlines() if "|" in line][1:]
check(len(lines) == 2, "one line per per-op time")
if len(lines) == 2:
    check(all(" |    1 | " in line for line in lines), "only the batch-8 row is scanned")
    means = [float(line.split("|")[2]) for line in lines]
    check(means[1] > means[0], "4 us per op gives a longer step than 0.5 us")
bad = subprocess.run(["/usr/bin/python3", os.path.join(
    sys.argv[2], "tools/energy-validation/scan_stack_per_op.py"), "--scoville", sys.argv[1],
    "--rows", csv_path, "--per-op", "fast"], capture_output=True, text=True, env=env)
check(bad.returncode != 0 and "--per-op expects" in bad.stderr, "a bad --per-op is refused")

check.finish("scan_stack_per_op")
