"""Roman numerals."""

_NUMERALS = [(1000, "M"), (500, "D"), (100, "C"), (50, "L"), (10, "X"), (5, "V"), (1, "I")]


def to_roman(number):
    """Writes 1..3999 as a Roman numeral."""
    if not 0 < number < 4000:
        raise ValueError("only 1..3999 can be written")
    out = []
    for value, letters in _NUMERALS:
        while number >= value:
            out.append(letters)
            number -= value
    return "".join(out)
