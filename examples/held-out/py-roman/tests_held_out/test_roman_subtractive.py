# Held out: copied into the workspace only after the agent has stopped.
from roman import to_roman


def test_nine():
    assert to_roman(9) == "IX"


def test_tens():
    assert to_roman(40) == "XL"
    assert to_roman(90) == "XC"


def test_hundreds():
    assert to_roman(400) == "CD"
    assert to_roman(900) == "CM"


def test_mixed():
    assert to_roman(1994) == "MCMXCIV"
    assert to_roman(3999) == "MMMCMXCIX"
