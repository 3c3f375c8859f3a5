"""How much of a time budget is left."""

from durationkit import format, parse


def remaining(budget, spent):
    """Seconds left of `budget` (a duration such as "1h") after the durations in `spent`."""
    left = parse(budget) - sum(parse(s) for s in spent)
    return left


def remaining_text(budget, spent):
    """remaining() as a duration text, e.g. "25m"."""
    return format(remaining(budget, spent))
