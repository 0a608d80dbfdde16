"""Checks every Chrome Trace Event file Scoville writes must pass (shared by the timeline tests):
the fields each phase needs, slices nesting per thread (Perfetto shows a thread's slices only if
they nest), flow arrows in pairs with both ends in a slice of their thread, numeric counters."""


def validate(document, label, failures, strict_arrows):
    """Format checks every trace must pass, failures appended to `failures`; returns
    {(pid, tid): [slice events]}. `strict_arrows`: an arrow's ends must lie strictly inside a
    slice of their thread (else an end may sit on a slice's edge, as `net --trace` draws them)."""

    def check(condition, message):
        if not condition:
            failures.append(message)

    check(document.get("displayTimeUnit") == "ns", f"{label}: displayTimeUnit must be ns")
    slices, flows = {}, {}
    for e in document["traceEvents"]:
        for key in ("ph", "pid", "name"):
            check(key in e, f"{label}: event without {key}: {e}")
        if e["ph"] == "X":
            check(e["dur"] >= 0 and e["ts"] >= 0, f"{label}: negative time: {e}")
            slices.setdefault((e["pid"], e["tid"]), []).append(e)
        elif e["ph"] == "C":
            check(e["args"] and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                    for v in e["args"].values()), f"{label}: counter: {e}")
        elif e["ph"] in ("s", "f"):
            flows.setdefault((e.get("cat"), e["id"]), []).append(e)
        elif e["ph"] != "M":
            failures.append(f"{label}: unexpected phase {e['ph']}")
    # Perfetto shows a thread's slices only if they nest. Relative slack 1e-9 at the edges.
    for (pid, tid), spans in slices.items():
        stack = []
        for e in sorted(spans, key=lambda e: (e["ts"], -e["dur"])):
            begin, end = e["ts"], e["ts"] + e["dur"]
            slack = 1e-9 * max(1.0, end)
            while stack and begin >= stack[-1] - slack:
                stack.pop()
            if stack and end > stack[-1] + slack:
                failures.append(f"{label}: pid {pid} tid {tid}: '{e['name']}' at {begin} crosses "
                                f"the end of its enclosing slice at {stack[-1]}")
                break
            stack.append(end)
    # One start and one finish per (category, id), the finish not before the start, each inside
    # a slice of its thread (Perfetto binds an arrow's end to the slice enclosing it).
    for key, pair in flows.items():
        phases = sorted(e["ph"] for e in pair)
        check(phases == ["f", "s"], f"{label}: flow {key} has phases {phases}")
        if phases != ["f", "s"]:
            continue
        start = next(e for e in pair if e["ph"] == "s")
        finish = next(e for e in pair if e["ph"] == "f")
        check(finish["ts"] >= start["ts"], f"{label}: flow {key} finishes before it starts")
        for end in (start, finish):
            slack = 0 if strict_arrows else 1e-9 * max(1.0, end["ts"])
            inside = any(s["ts"] - slack < end["ts"] < s["ts"] + s["dur"] + slack
                         for s in slices.get((end["pid"], end["tid"]), []))
            check(inside, f"{label}: flow {key} end {end} is in no slice of its thread")
    return slices
