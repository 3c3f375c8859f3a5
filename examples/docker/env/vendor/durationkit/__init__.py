"""durationkit: durations such as "1h30m" or "90s" to seconds and back.

A tiny package vendored into the example's image (examples/docker/env/Dockerfile) to stand for a
pinned dependency the host does not have: the task's tests import it and check its version.
"""

import re

__version__ = "1.2.0"

_UNITS = {"h": 3600, "m": 60, "s": 1}
_PART = re.compile(r"(\d+)([hms])")


def parse(text):
    """Seconds in a duration written as parts like 1h, 30m, 15s (any order, each unit once)."""
    text = text.strip()
    parts = _PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ValueError(f"not a duration: {text!r}")
    units = [u for _, u in parts]
    if len(set(units)) != len(units):
        raise ValueError(f"a unit appears twice in {text!r}")
    return sum(int(n) * _UNITS[u] for n, u in parts)


def format(seconds):
    """The shortest duration text for a whole number of seconds: 5400 -> "1h30m"."""
    if seconds < 0:
        raise ValueError("a duration cannot be negative")
    out = ""
    for unit, size in _UNITS.items():
        count, seconds = divmod(seconds, size)
        if count:
            out += f"{count}{unit}"
    return out or "0s"
