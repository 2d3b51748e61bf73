"""Codes of laws as data: the built-in codes, club profiles, and typed errors naming the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules.laws.codes import (
    IllegalPlay,
    IncompletePlay,
    Opening,
    PrematureThrow,
    ProfileError,
    RefusedDouble,
    Scoring,
    SetupError,
    builtin,
    builtin_names,
    from_mapping,
    load_profile,
    resolve,
)
from rules.laws.verdicts import Infraction

# Infractions a code may leave to the director because the code has no such rule.
NOT_IN_EVERY_CODE = {Infraction.DICE_TOUCHED, Infraction.DICE_NOT_TOGETHER}


def test_builtin_codes_present() -> None:
    assert set(builtin_names()) == {"laws-1931", "bar-point-1931", "iba-1969", "modern", "javea-u3a"}


@pytest.mark.parametrize("name", ["laws-1931", "bar-point-1931", "iba-1969", "modern", "javea-u3a"])
def test_every_infraction_is_cited(name: str) -> None:
    rs = builtin(name)
    for code in Infraction:
        if code in NOT_IN_EVERY_CODE and name == "laws-1931":
            continue
        c = rs.cite(code)
        assert c.rule not in ("",), (name, code)
        assert rs.has_rule(code), (name, code)
        assert 10 < len(c.says) <= 200
        assert c.code == name


def test_codes_differ_where_the_laws_differ() -> None:
    l31, bp, iba, mod, club = (builtin(n) for n in ("laws-1931", "bar-point-1931", "iba-1969", "modern", "javea-u3a"))
    assert l31.premature_throw is PrematureThrow.VOID
    assert iba.premature_throw is PrematureThrow.RETHROW
    assert mod.premature_throw is PrematureThrow.STANDS
    assert club.premature_throw is PrematureThrow.OPPONENT_CHOOSES and not club.premature_rule_in_bearoff
    assert l31.setup_error is SetupError.GAME_VOID and iba.setup_error is SetupError.CORRECT_BEFORE_SECOND_PLAY
    assert bp.opening is Opening.PLAY_OR_RETHROW and l31.opening is Opening.PLAY_OPENING_DICE
    assert l31.automatic_doubles and l31.automatic_double_limit == 0
    assert bp.automatic_doubles and bp.automatic_double_limit > 0
    assert not iba.automatic_doubles and not mod.automatic_doubles
    assert club.automatic_doubles and club.automatic_double_limit == 8 and club.beavers
    assert mod.crawford and not l31.crawford and not iba.crawford
    assert mod.illegal_play is IllegalPlay.MUST_CORRECT and iba.illegal_play is IllegalPlay.ON_DEMAND
    assert club.incomplete_play is IncompletePlay.COMPEL_OR_FORGO
    assert l31.highest_first_in_bearoff and not mod.highest_first_in_bearoff
    assert bp.chouette_refused_double is RefusedDouble.PAYS_PLAYING_MEMBER
    assert l31.chouette_refused_double is RefusedDouble.PAYS_ACTIVE_ASSUMES
    # derived codes keep their base's texts where they do not override them
    assert bp.cite(Infraction.WRONG_SETUP) .rule == "6"
    assert club.cite(Infraction.DICE_COCKED).rule == "4.2"
    assert club.cite(Infraction.PREMATURE_THROW).rule == "House 2"


def test_premature_citations() -> None:
    assert builtin("laws-1931").cite(Infraction.PREMATURE_THROW).rule == "14"
    assert builtin("modern").cite(Infraction.PREMATURE_THROW).rule == "4.6"


def test_club_profile_toml(tmp_path: Path) -> None:
    f = tmp_path / "club.toml"
    f.write_text(
        'name = "my-club"\nbase = "modern"\ntitle = "My club"\n'
        '[options]\nbeavers = true\njacoby = true\nscoring = "combined"\n'
        '[rules.premature-throw]\nrule = "C7"\nsays = "an early throw is void at our club"\n'
    )
    rs = load_profile(f)
    assert rs.name == "my-club" and rs.base == "modern" and rs.title == "My club"
    assert rs.beavers and rs.jacoby and rs.scoring is Scoring.COMBINED
    assert rs.cite(Infraction.PREMATURE_THROW).rule == "C7"
    assert rs.cite(Infraction.DICE_COCKED).rule == "4.2"
    assert resolve(str(f)) == rs


def test_club_profile_json(tmp_path: Path) -> None:
    f = tmp_path / "club.json"
    f.write_text(json.dumps({"name": "j", "base": "iba-1969", "options": {"premature_throw": "stands"}}))
    rs = load_profile(f)
    assert rs.premature_throw is PrematureThrow.STANDS and not rs.crawford


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"name": "x", "base": "modern", "colour": "red"}, "colour"),
        ({"name": "x", "base": "modern", "options": {"beaver": True}}, "options.beaver"),
        ({"name": "x", "base": "modern", "options": {"beavers": "yes"}}, "options.beavers"),
        ({"name": "x", "base": "modern", "options": {"premature_throw": "maybe"}}, "options.premature_throw"),
        ({"name": "x", "base": "modern", "options": {"automatic_double_limit": -2}}, "options.automatic_double_limit"),
        ({"name": "x", "base": "nowhere"}, "base"),
        ({"base": "modern"}, "name"),
        ({"name": "x", "rules": {"no-such-infraction": {"rule": "1"}}}, "rules.no-such-infraction"),
        ({"name": "x", "rules": {"premature-throw": {"rule": "1", "quote": "q"}}}, "rules.premature-throw"),
    ],
)
def test_bad_profile_names_the_key(data: dict[str, object], key: str) -> None:
    with pytest.raises(ProfileError) as exc:
        from_mapping(data, origin="club.toml")
    assert exc.value.key == key
    assert key.split(".")[-1] in str(exc.value)
    assert isinstance(exc.value, ValueError)


def test_bad_toml_and_missing_file(tmp_path: Path) -> None:
    f = tmp_path / "bad.toml"
    f.write_text("name = \n")
    with pytest.raises(ProfileError, match="not valid TOML"):
        load_profile(f)
    with pytest.raises(ProfileError, match="cannot read"):
        load_profile(tmp_path / "missing.toml")
    with pytest.raises(ProfileError, match="no built-in code"):
        builtin("1932")


def test_options_listing_is_plain() -> None:
    opts = builtin("javea-u3a").options()
    assert opts["premature_throw"] == "opponent-chooses"
    assert opts["automatic_double_limit"] == 8
    assert "rules" not in opts


def test_clock_rule() -> None:
    assert builtin("modern").clock_minutes(7) == 14.0
    assert builtin("modern").clock_delay_s == 12.0
