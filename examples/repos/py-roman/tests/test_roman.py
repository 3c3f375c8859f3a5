import pytest

from roman import to_roman


def test_one():
    assert to_roman(1) == "I"


def test_additive():
    assert to_roman(2026) == "MMXXVI"


def test_out_of_range():
    with pytest.raises(ValueError):
        to_roman(0)


def test_four_uses_subtraction():
    assert to_roman(4) == "IV"
    assert to_roman(14) == "XIV"
