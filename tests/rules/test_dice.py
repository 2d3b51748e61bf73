import pytest

from rules.dice import Dice, DiceError


@pytest.mark.parametrize("text", ["31", "3-1", "13", "3 1", " 3/1 ", "1,3"])
def test_parse_dialects(text: str) -> None:
    d = Dice.parse(text)
    assert (d.high, d.low) == (3, 1)
    assert str(d) == "31"
    assert not d.is_double
    assert d.pips == (3, 1)


def test_doubles_play_four_times() -> None:
    d = Dice.parse("55")
    assert d.is_double and d.pips == (5, 5, 5, 5) and d.total == 20


def test_keeps_order_as_thrown() -> None:
    d = Dice(1, 3)
    assert (d.d1, d.d2) == (1, 3) and str(d) == "31"


@pytest.mark.parametrize("text", ["7", "71", "0 3", "", "abc", "3-1-2"])
def test_bad_dice_quote_input(text: str) -> None:
    with pytest.raises(DiceError) as exc:
        Dice.parse(text)
    assert repr(text) in str(exc.value)
    assert isinstance(exc.value, ValueError)


def test_bad_values() -> None:
    with pytest.raises(DiceError):
        Dice(0, 3)
    with pytest.raises(DiceError):
        Dice(3, 7)


def test_all_rolls() -> None:
    rolls = Dice.all_rolls()
    assert len(rolls) == 21 and len({str(r) for r in rolls}) == 21
    assert sum(1 for r in rolls if r.is_double) == 6
