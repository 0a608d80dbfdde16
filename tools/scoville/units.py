"""Unit values as the YAML files write them (docs/schemas.md, "Units"), for the Python tools."""
import re

DURATION_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def seconds(text):
    """A duration ("2.5 us", "0.1 ms", "0 s", a trailing "# comment" allowed, or a bare number of
    seconds) in seconds; None when `text` is none of those."""
    if isinstance(text, (int, float)):
        return float(text)
    m = re.match(r"\s*([0-9.eE+-]+)\s*(s|ms|us|ns)?(?:\s|#|$)", str(text))
    if not m:
        return None
    try:
        return float(m.group(1)) * DURATION_UNITS[m.group(2) or "s"]
    except ValueError:
        return None
