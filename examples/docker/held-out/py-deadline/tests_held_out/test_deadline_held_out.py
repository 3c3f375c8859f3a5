from deadline import remaining, remaining_text


def test_exactly_spent():
    assert remaining("30m", ["10m", "20m"]) == 0


def test_overspent_text_is_zero():
    assert remaining_text("1m", ["90s"]) == "0s"


def test_nothing_spent():
    assert remaining("1h30m", []) == 5400
