#!/bin/sh
# Builds the local git mirror the sample instances (instances.jsonl) refer to, offline and
# byte-for-byte the same every time (fixed names and dates), so base_commit matches:
#   examples/swe-bench/make-repo.sh DIR   → DIR/example__calc
# Then: crucible import swe-bench examples/swe-bench/instances.jsonl --repos DIR -o OUT --environment none
set -eu
dir="${1:?usage: make-repo.sh DIR}"
repo="$dir/example__calc"
rm -rf "$repo"
mkdir -p "$repo/calc" "$repo/tests"
cd "$repo"
export GIT_AUTHOR_NAME=example GIT_AUTHOR_EMAIL=example@example.invalid GIT_COMMITTER_NAME=example GIT_COMMITTER_EMAIL=example@example.invalid
export GIT_AUTHOR_DATE='2024-01-01T00:00:00Z' GIT_COMMITTER_DATE='2024-01-01T00:00:00Z'
git init -q -b main .
git config commit.gpgsign false
cat > calc/__init__.py <<'PY'
def mean(values):
    """The arithmetic mean of a non-empty list."""
    return sum(values) / len(values)


def median(values):
    """The middle value; for an even count, the mean of the two middle values."""
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def clamp(value, low, high):
    """value limited to [low, high]."""
    return max(low, min(value, high))
PY
cat > tests/test_calc.py <<'PY'
import pytest

from calc import clamp, mean, median


def test_mean():
    assert mean([1, 2, 3]) == 2


@pytest.mark.parametrize("values,expected", [([3, 1, 2], 2), ([5], 5)])
def test_median_odd(values, expected):
    assert median(values) == expected


class TestClamp:
    def test_inside(self):
        assert clamp(5, 0, 10) == 5
PY
git add -A && git commit -q -m 'calc: mean, median, clamp'
