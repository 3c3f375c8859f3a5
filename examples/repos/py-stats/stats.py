"""Small descriptive statistics without dependencies."""


def mean(values):
    if not values:
        raise ValueError("mean of an empty sequence")
    return sum(values) / len(values)


def median(values):
    if not values:
        raise ValueError("median of an empty sequence")
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def value_range(values):
    if not values:
        raise ValueError("range of an empty sequence")
    return max(values) - min(values)
