#!/usr/bin/python3
"""tools/check-layers: the source tree follows the layer order, and the check fails on a tree
where a lower layer includes a higher one (or models and workloads include each other).
usage: check_layers_test.py SCOVILLE SOURCE_DIR WORKDIR
"""
import os
import shutil
import subprocess
import sys

SOURCE, WORK = sys.argv[2], sys.argv[3]
CHECK = [sys.executable, os.path.join(SOURCE, "tools", "check-layers", "check_layers.py")]
failures = []


def run(root):
    return subprocess.run(CHECK + [root], capture_output=True, text=True)


def tree(files):
    shutil.rmtree(WORK, ignore_errors=True)
    for path, text in files.items():
        full = os.path.join(WORK, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
    return WORK


real = run(SOURCE)
if real.returncode != 0:
    failures.append(f"the source tree breaks the layer order:\n{real.stdout}{real.stderr}")

ok = {"sim/cli/a.cpp": '#include "sim/engine/b.hpp"\n#include "sim/base/c.hpp"\n',
      "sim/engine/b.hpp": '#include "models/d.hpp"\n#include "workloads/e.hpp"\n',
      "models/d.hpp": '#include "sim/base/c.hpp"\n', "workloads/e.hpp": "\n",
      "sim/base/c.hpp": "#include <string>\n"}
r = run(tree(ok))
if r.returncode != 0:
    failures.append(f"a downward-only tree was refused: {r.stdout}")

for path, text, expect in [
        ("sim/engine/x.cpp", '#include "sim/output/y.hpp"\n', "layer 'engine' includes"),
        ("sim/base/x.cpp", '  # include "sim/cli/y.hpp"\n', "layer 'base' includes"),
        ("models/x.hpp", '#include "workloads/e.hpp"\n', "beside it"),
        ("workloads/x.cpp", '#include "models/d.hpp"\n', "beside it")]:
    r = run(tree(dict(ok, **{path: text})))
    if r.returncode != 1 or expect not in r.stdout or f"{path}:1:" not in r.stdout:
        failures.append(f"{path} including upward/sideways: exit {r.returncode}, {r.stdout!r}")

if failures:
    print("FAILED:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("check-layers: all checks passed")
