#!/usr/bin/python3
"""`scoville run` and `scoville serve` on a terminal show their progress (issue 29: no command silent for more than a few
seconds): a system run counts its engine iterations, a single-chip run on a cold op cache the ops
it simulates, a detailed run (--detailed) the ops each chip's program has done; --quiet and a pipe
get no progress line, and the results are the same.
usage: run_progress_test.py SCOVILLE SOURCE_DIR WORKDIR
"""
import os
import pty
import re
import shutil
import subprocess
import sys

SCOVILLE, WORK = sys.argv[1], sys.argv[3]
failures = []


def on_terminal(args, cache):
    """Runs scoville with stdout and stderr on a pseudo-terminal; returns everything it wrote."""
    env = dict(os.environ, TERM="xterm", SCOVILLE_CACHE_DIR=cache)
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(SCOVILLE, [SCOVILLE, *args], env)
    chunks = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        failures.append(f"scoville {' '.join(args)} exited {os.waitstatus_to_exitcode(status)}")
    return b"".join(chunks).decode("utf-8", "replace")


def fresh_cache(name):
    path = os.path.join(WORK, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def expect(condition, what):
    if not condition:
        failures.append(what)


system = ["run", "--system", "h200-hgx8", "--model", "llama-3.1-8b", "--batch", "2", "--isl",
          "128", "--osl", "4", "--tp", "4"]
shown = on_terminal(system, fresh_cache("a"))
expect("run: engine iterations" in shown and "4/4 (100%)" in shown and "prefill" in shown,
       f"run --system on a terminal shows no iteration progress:\n{shown[:600]}")
quiet = on_terminal(system + ["--quiet"], fresh_cache("b"))
expect("engine iterations" not in quiet, "run --system --quiet drew progress")
piped = subprocess.run([SCOVILLE, *system], capture_output=True, text=True,
                       env=dict(os.environ, TERM="xterm", SCOVILLE_CACHE_DIR=fresh_cache("c")))
expect(piped.returncode == 0 and "engine iterations" not in piped.stderr,
       f"run --system into a pipe drew progress: {piped.stderr[:300]}")
# The report after the line is the same as without it.
expect(piped.stdout.splitlines()[0] in shown, "the terminal run's report differs")

chip = ["run", "--chip", "h200", "--batch", "1", "--isl", "64", "--osl", "2"]
cold = on_terminal(chip, fresh_cache("d"))
expect("run: ops simulated" in cold and "done: h200" in cold,
       f"run on a cold op cache shows no op progress:\n{cold[:600]}")

# A detailed run: one count over both chips' programs, each chip's own in the label, and the
# last line at 100 % (every chip's program done).
detailed = ["run", "--detailed", "--chip", "h200,jalapeno", "--batch", "1", "--isl", "64",
            "--osl", "2"]
shown = on_terminal(detailed, fresh_cache("e"))
final = re.search(r"run: ops done \[#+\] (\d+)/\1 \(100%\)", shown)
expect(final is not None and "h200 " in shown and ", jalapeno " in shown,
       f"run --detailed on a terminal shows no per-chip op progress:\n{shown[:600]}")
expect("ops simulated" not in shown, "run --detailed drew the op-cache count as well")
quiet = on_terminal(detailed + ["--quiet"], fresh_cache("f"))
expect("ops done" not in quiet, "run --detailed --quiet drew progress")
piped = subprocess.run([SCOVILLE, *detailed], capture_output=True, text=True,
                       env=dict(os.environ, TERM="xterm", SCOVILLE_CACHE_DIR=fresh_cache("g")))
expect(piped.returncode == 0 and "ops done" not in piped.stderr,
       f"run --detailed into a pipe drew progress: {piped.stderr[:300]}")
expect(piped.stdout.splitlines()[0] in shown, "the detailed terminal run's report differs")

# A serving run counts the scheduler's iterations with the simulated time (and, on a cold op
# cache, the ops simulated); --quiet and a pipe get no line, and the results are the same.
serve = ["serve", "--scenario", os.path.join(sys.argv[2], "workloads/scenarios/llama-3.1-8b-poisson-h200.yaml"),
         "--fidelity", "roofline", "--json"]
shown = on_terminal(serve, fresh_cache("h"))
expect(re.search(r"serve: iterations: \d+ done: t = [0-9.]+ s simulated, \d+ running", shown)
       is not None, f"serve on a terminal shows no iteration progress:\n{shown[:600]}")
quiet = on_terminal(serve + ["--quiet"], fresh_cache("i"))
expect("serve: iterations" not in quiet, "serve --quiet drew progress")
piped = subprocess.run([SCOVILLE, *serve], capture_output=True, text=True,
                       env=dict(os.environ, TERM="xterm", SCOVILLE_CACHE_DIR=fresh_cache("j")))
expect(piped.returncode == 0 and "serve: iterations" not in piped.stderr,
       f"serve into a pipe drew progress: {piped.stderr[:300]}")
expect(piped.stdout.strip().replace("\n", "\r\n") in shown or piped.stdout.strip() in shown.replace("\r\n", "\n"),
       "the terminal serve's results differ from the piped ones")

# A point-counting command (inferencex; plan, ablate, validate and calibrate alike) shows the ops
# it simulates on a cold op cache between its points, and inferencex the scheduler of the point
# in progress, so one slow point does not freeze the line.
ix = ["inferencex", "--system", "h200-hgx8", "--model", "llama-3.1-8b", "--isl", "256", "--osl",
      "8", "--concurrency", "2", "--prompts-per-client", "1", "--tp", "1"]
shown = on_terminal(ix, fresh_cache("k"))
expect(re.search(r"inferencex \[\.+\] 0/1 \(0%\) \? left: \d+ ops simulated", shown) is not None,
       f"inferencex on a cold op cache shows no op count before its point:\n{shown[:600]}")
warm = on_terminal(ix, os.path.join(WORK, "k"))
expect("ops simulated\x1b" not in warm and " ops\x1b" not in warm,
       "inferencex on a warm op cache counted ops it did not simulate")
# Inside a point: its mapping and concurrency, the simulated time reached and the sequences.
expect(re.search(r"left: tp1 N=2: t=[0-9.]+ s, \d+ running", warm) is not None,
       f"inferencex shows nothing of the point in progress:\n{warm[:600]}")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
