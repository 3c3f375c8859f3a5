import pytest

from stats import mean, median, value_range


def test_mean():
    assert mean([1, 2, 3, 4]) == 2.5


def test_mean_rejects_empty():
    with pytest.raises(ValueError):
        mean([])


def test_median_odd_count():
    assert median([3, 1, 2]) == 2


def test_median_even_count():
    assert median([4, 1, 3, 2]) == 2.5


def test_median_does_not_mutate():
    values = [3, 1, 2]
    median(values)
    assert values == [3, 1, 2]


def test_range():
    assert value_range([5, -2, 9]) == 11
