import durationkit

from deadline import remaining, remaining_text


def test_uses_the_pinned_durationkit():
    assert durationkit.__version__ == "1.2.0"


def test_remaining_within_budget():
    assert remaining("1h", ["20m", "15m"]) == 25 * 60


def test_remaining_text():
    assert remaining_text("2h", ["30m"]) == "1h30m"


def test_overspent_budget_has_nothing_left():
    assert remaining("1h", ["50m", "20m"]) == 0
