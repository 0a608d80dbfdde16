#!/usr/bin/python3
"""Fails when a file includes a header of a layer above its own (docs/architecture.md).

Layers, lowest first; a layer may include its own headers and those of any layer below it.
`models` and `workloads` share a level and may not include each other (an op reaches a tile as a
plain work descriptor; workloads knows no hardware module: ../shared/DESIGN.md section 1).
usage: check_layers.py [SOURCE_DIR] [--graph]   (--graph prints the layer-to-layer include counts)
"""
import collections
import os
import re
import sys

# (layer, the folders it owns), lowest first. Each level is a list of layers on that level.
LEVELS = [
    [("base", ["sim/base"])],
    [("models", ["models"]), ("workloads", ["workloads"])],
    [("study", ["sim/study"])],
    [("serving", ["sim/serving"])],
    [("config", ["sim/config"])],
    [("stats", ["sim/stats"])],
    [("engine", ["sim/engine"])],
    [("output", ["sim/output"])],
    [("validation", ["sim/validation"])],
    [("sweep", ["sim/sweep"])],
    [("cli", ["sim/cli"])],
]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_table():
    level_of, folders = {}, []
    for level, layers in enumerate(LEVELS):
        for name, dirs in layers:
            level_of[name] = level
            folders += [(d.rstrip("/") + "/", name) for d in dirs]
    # Longest folder first, so sim/base is not taken for a file of sim/.
    folders.sort(key=lambda f: -len(f[0]))
    return level_of, folders


def layer_of(path, folders):
    for prefix, name in folders:
        if path.startswith(prefix):
            return name
    return None


def scan(root):
    """[(file, line, its layer, included header, the header's layer)] for every include of
    one of our headers between two known layers."""
    _, folders = layer_table()
    found = []
    for top in ("sim", "models", "workloads"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".cpp", ".hpp", ".h", ".cc")):
                    continue
                path = os.path.relpath(os.path.join(dirpath, f), root)
                src = layer_of(path, folders)
                if src is None:
                    continue
                text = open(os.path.join(root, path), encoding="utf-8").read()
                for m in INCLUDE.finditer(text):
                    dst = layer_of(m.group(1), folders)
                    if dst is not None:
                        line = text.count("\n", 0, m.start()) + 1
                        found.append((path, line, src, m.group(1), dst))
    return found


def violations(found):
    level_of, _ = layer_table()
    bad = []
    for path, line, src, header, dst in found:
        if src == dst:
            continue
        if level_of[dst] > level_of[src] or (level_of[dst] == level_of[src]):
            bad.append(f"{path}:{line}: layer '{src}' includes '{header}' of layer '{dst}', "
                       f"which is {'above it' if level_of[dst] > level_of[src] else 'beside it'}")
    return bad


def main(argv):
    root = next((a for a in argv if not a.startswith("--")), os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    found = scan(root)
    if not found:
        print("check-layers: no includes found under", root, file=sys.stderr)
        return 2
    if "--graph" in argv:
        counts = collections.Counter((s, d) for _, _, s, _, d in found if s != d)
        for (s, d), n in sorted(counts.items()):
            print(f"{s:10s} -> {d:10s} {n}")
    bad = violations(found)
    for b in bad:
        print(b)
    if bad:
        print(f"check-layers: {len(bad)} include(s) against the layer order "
              "(docs/architecture.md)", file=sys.stderr)
        return 1
    print(f"check-layers: {len(found)} includes across {len(LEVELS)} levels follow the order")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
