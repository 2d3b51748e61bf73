"""Codes of laws as data: one frozen :class:`RuleSet` per code, every option explicit.

The built-in codes live in ``rules/laws/profiles/*.toml``; a club writes its own file
deriving from one of them (``base = "modern"``) and overriding options and rule texts.

>>> rs = builtin("modern")
>>> rs.premature_throw is PrematureThrow.STANDS
True
>>> rs.cite(Infraction.PREMATURE_THROW).rule
'4.6'
>>> sorted(builtin_names())[:2]
['bar-point-1931', 'iba-1969']
"""

from __future__ import annotations

import dataclasses
import json
import tomllib
from dataclasses import dataclass
from enum import Enum
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from rules.laws.verdicts import Citation, Infraction


class PrematureThrow(Enum):
    """A throw made before the opponent's play is complete."""

    VOID = "void"  # the throw does not count (1931)
    RETHROW = "rethrow"  # thrown again when the turn comes (1969)
    STANDS = "stands"  # stands if otherwise valid (modern)
    OPPONENT_CHOOSES = "opponent-chooses"  # the opponent says whether it stands or is rethrown


class PrematureDouble(Enum):
    """A double offered by the player not on roll before his opponent's turn has ended."""

    VOID = "void"  # only the player on turn may double: the offer is void (1931, Bar Point, 1969)
    STANDS = "stands"  # a premature cube action stands if otherwise valid (US 2008 rule 4.6)


class IllegalPlay(Enum):
    MUST_CORRECT = "must-correct"  # "Legal Moves": corrected if noticed before the next throw or double
    ON_DEMAND = "on-demand"  # corrected only if the opponent asks, before he throws ("Responsible Moves")


class IncompletePlay(Enum):
    AS_ILLEGAL = "as-illegal"  # treated as any illegal play
    COMPEL_OR_FORGO = "compel-or-forgo"  # the opponent may compel completion or let it stand


class SetupError(Enum):
    GAME_VOID = "game-void"
    CORRECT_BEFORE_SECOND_PLAY = "correct-before-second-play"


class Opening(Enum):
    PLAY_OPENING_DICE = "play-opening-dice"  # the winner plays the two single dice
    PLAY_OR_RETHROW = "play-or-rethrow"  # ... or, at his option, throws his own pair


class Scoring(Enum):
    GAMES = "games"  # 1 per game, 2 for a gammon, 3 for a backgammon, times the cube
    MEN = "men"  # by the loser's men left, weighted by where they stand
    COMBINED = "combined"  # by men, doubled for a gammon, tripled for a backgammon, times the cube


class DieOnChecker(Enum):
    COCKED = "cocked"
    VALID = "valid"


class TurnEnd(Enum):
    LIFT_DICE = "lift-dice"
    LIFT_OR_CLOCK = "lift-or-clock"


class Consultation(Enum):
    """How the team plays a chouette game."""

    NONE = "none"  # the active player alone
    PARTNERS_CONSULT = "partners-consult"  # 1931: partners may advise
    TEAM_ADVICE = "team-advice"  # Bar Point: the team advises the playing member
    CAPTAIN_AND_TEAM = "captain-and-team"  # modern/club: the captain decides plays


class RefusedDouble(Enum):
    """What happens when a team member refuses the box's double in a chouette."""

    PAYS_ACTIVE_ASSUMES = "pays-active-assumes"  # 1931: he pays his stake, the active player takes over his share
    PAYS_PLAYING_MEMBER = "pays-playing-member"  # Bar Point: the retiring partner pays the playing member
    PAYS_BOX = "pays-box"  # modern: he pays the box and is out of this game


# Keys of the rule table besides the infractions.
EXTRA_RULE_KEYS = ("opening", "opening-tie", "turn-end", "doubling", "scoring", "crawford", "chouette", "setup-late")


class ProfileError(ValueError):
    """A code-of-laws file that cannot be used; ``key`` names the offending key."""

    def __init__(self, message: str, key: str = "") -> None:
        super().__init__(message)
        self.key = key


@dataclass(frozen=True, slots=True)
class RuleText:
    rule: str
    says: str


@dataclass(frozen=True, slots=True)
class RuleSet:
    """One code of laws: every option that differs between codes, and its rule texts."""

    name: str
    title: str
    source: str = ""
    base: str = ""
    # throws
    premature_throw: PrematureThrow = PrematureThrow.STANDS
    premature_rule_in_bearoff: bool = True
    premature_double: PrematureDouble = PrematureDouble.VOID
    wrong_table_rethrow: bool = True
    dice_together: bool = False
    touched_die_rethrow: bool = False
    die_on_checker: DieOnChecker = DieOnChecker.COCKED
    opening: Opening = Opening.PLAY_OPENING_DICE
    # plays
    turn_end: TurnEnd = TurnEnd.LIFT_DICE
    illegal_play: IllegalPlay = IllegalPlay.MUST_CORRECT
    incomplete_play: IncompletePlay = IncompletePlay.AS_ILLEGAL
    setup_error: SetupError = SetupError.CORRECT_BEFORE_SECOND_PLAY
    highest_first_in_bearoff: bool = False
    # cube
    doubling: bool = True
    automatic_doubles: bool = False
    automatic_double_limit: int = 0  # 0: no limit
    beavers: bool = False
    jacoby: bool = False
    crawford: bool = True
    cube_limit: int = 0  # 0: no limit
    # scoring
    scoring: Scoring = Scoring.GAMES
    gammons: bool = True
    backgammons: bool = True
    # clocks (where used)
    clocks: bool = False
    clock_delay_s: float = 12.0
    clock_per_point_s: float = 120.0
    # chouette
    chouette_consultation: Consultation = Consultation.CAPTAIN_AND_TEAM
    chouette_individual_cube: bool = True
    chouette_refused_double: RefusedDouble = RefusedDouble.PAYS_BOX
    # rule texts: (key, RuleText) pairs; keys are Infraction values or EXTRA_RULE_KEYS
    rules: tuple[tuple[str, RuleText], ...] = ()

    def cite(self, key: Infraction | str) -> Citation:
        """The rule this code gives for ``key`` (an infraction or one of EXTRA_RULE_KEYS)."""
        k = key.value if isinstance(key, Infraction) else key
        for name, text in self.rules:
            if name == k:
                return Citation(self.name, self.title, text.rule, text.says)
        return Citation(self.name, self.title, "-", f"this code has no rule on {k}; the director decides")

    def has_rule(self, key: Infraction | str) -> bool:
        k = key.value if isinstance(key, Infraction) else key
        return any(name == k for name, _ in self.rules)

    def options(self) -> dict[str, object]:
        """Every option (not the rule texts) as plain values, for display."""
        out: dict[str, object] = {}
        for f in dataclasses.fields(self):
            if f.name in ("name", "title", "source", "base", "rules"):
                continue
            v = getattr(self, f.name)
            out[f.name] = v.value if isinstance(v, Enum) else v
        return out

    def clock_minutes(self, match_length: int) -> float:
        """Reserve time per player by the common rule: ``clock_per_point_s`` per match point."""
        return self.clock_per_point_s * match_length / 60.0


_META = ("name", "title", "source", "base")
_OPTION_FIELDS = {f.name: f for f in dataclasses.fields(RuleSet) if f.name not in (*_META, "rules")}
_RULE_KEYS = frozenset([i.value for i in Infraction] + list(EXTRA_RULE_KEYS))


def _coerce(key: str, value: object, current: object) -> object:
    """Check ``value`` against the type of the option's current value."""
    if isinstance(current, Enum):
        enum_type = type(current)
        if not isinstance(value, str):
            raise ProfileError(f"option {key!r} must be a string, got {value!r}", key)
        try:
            return enum_type(value)
        except ValueError:
            allowed = ", ".join(repr(e.value) for e in enum_type)
            raise ProfileError(f"option {key!r} cannot be {value!r}; one of {allowed}", key) from None
    if isinstance(current, bool):
        if not isinstance(value, bool):
            raise ProfileError(f"option {key!r} must be true or false, got {value!r}", key)
        return value
    if isinstance(current, int):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ProfileError(f"option {key!r} must be a whole number >= 0, got {value!r}", key)
        return value
    if isinstance(current, float):
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ProfileError(f"option {key!r} must be a number >= 0, got {value!r}", key)
        return float(value)
    raise ProfileError(f"option {key!r} has an unsupported type", key)  # pragma: no cover


def from_mapping(data: dict[str, Any], *, origin: str = "<profile>", _depth: int = 0) -> RuleSet:
    """Build a RuleSet from parsed TOML/JSON, deriving from ``base`` when given.

    Unknown keys, bad values and unknown bases raise :class:`ProfileError` naming the key.
    """
    if not isinstance(data, dict):
        raise ProfileError(f"{origin}: a code of laws must be a table/object", "")
    for key in data:
        if key not in (*_META, "options", "rules"):
            raise ProfileError(f"{origin}: unknown key {key!r} (allowed: {', '.join((*_META, 'options', 'rules'))})", key)
    for key in _META:
        if key in data and not isinstance(data[key], str):
            raise ProfileError(f"{origin}: {key!r} must be a string, got {data[key]!r}", key)
    if "name" not in data:
        raise ProfileError(f"{origin}: missing key 'name'", "name")
    base_name = data.get("base", "")
    if base_name:
        if _depth > 8:
            raise ProfileError(f"{origin}: 'base' chain too deep at {base_name!r}", "base")
        if base_name not in builtin_names():
            raise ProfileError(f"{origin}: unknown base {base_name!r} (one of {', '.join(sorted(builtin_names()))})", "base")
        start = _load_builtin(base_name, _depth + 1)
    else:
        start = RuleSet(name="", title="")
    changes: dict[str, Any] = {k: data[k] for k in _META if k in data}
    changes.setdefault("title", start.title or data["name"])
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise ProfileError(f"{origin}: 'options' must be a table", "options")
    for key, value in options.items():
        if key not in _OPTION_FIELDS:
            raise ProfileError(f"{origin}: unknown option {key!r}", f"options.{key}")
        try:
            changes[key] = _coerce(key, value, getattr(start, key))
        except ProfileError as exc:
            raise ProfileError(f"{origin}: {exc}", f"options.{key}") from None
    rules = dict(start.rules)
    table = data.get("rules", {})
    if not isinstance(table, dict):
        raise ProfileError(f"{origin}: 'rules' must be a table", "rules")
    for key, entry in table.items():
        if key not in _RULE_KEYS:
            raise ProfileError(f"{origin}: unknown rule key {key!r}", f"rules.{key}")
        if not isinstance(entry, dict) or set(entry) - {"rule", "says"} or "rule" not in entry:
            raise ProfileError(f"{origin}: rules.{key} needs 'rule' (and 'says') only, got {entry!r}", f"rules.{key}")
        rule, says = entry["rule"], entry.get("says", "")
        if not isinstance(rule, str) or not isinstance(says, str):
            raise ProfileError(f"{origin}: rules.{key}: 'rule' and 'says' must be strings", f"rules.{key}")
        if len(says) > 200:
            raise ProfileError(f"{origin}: rules.{key}: 'says' is a short paraphrase (<= 200 characters)", f"rules.{key}")
        rules[key] = RuleText(rule, says)
    changes["rules"] = tuple(sorted(rules.items()))
    return dataclasses.replace(start, **changes)


def _parse_text(text: str, origin: str, fmt: str) -> dict[str, Any]:
    try:
        if fmt == "json":
            data = json.loads(text)
        else:
            data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise ProfileError(f"{origin}: not valid {fmt.upper()}: {exc}", "") from exc
    if not isinstance(data, dict):
        raise ProfileError(f"{origin}: a code of laws must be a table/object", "")
    return data


def load_profile(path: str | Path) -> RuleSet:
    """Read a club's code of laws from a TOML or JSON file."""
    p = Path(path)
    fmt = "json" if p.suffix.lower() == ".json" else "toml"
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ProfileError(f"cannot read {str(p)!r}: {exc.strerror}", "") from exc
    return from_mapping(_parse_text(text, str(p), fmt), origin=str(p))


def _profile_dir() -> Any:
    return resources.files("rules.laws").joinpath("profiles")


@cache
def builtin_names() -> tuple[str, ...]:
    """The names of the built-in codes of laws (file stems of ``profiles/*.toml``)."""
    return tuple(sorted(e.name[:-5] for e in _profile_dir().iterdir() if e.name.endswith(".toml")))


@cache
def _load_builtin(name: str, depth: int = 0) -> RuleSet:
    text = _profile_dir().joinpath(f"{name}.toml").read_text(encoding="utf-8")
    return from_mapping(_parse_text(text, f"{name}.toml", "toml"), origin=f"{name}.toml", _depth=depth)


def builtin(name: str) -> RuleSet:
    """A built-in code of laws by name; :class:`ProfileError` for an unknown name."""
    if name not in builtin_names():
        raise ProfileError(f"no built-in code of laws {name!r} (one of {', '.join(builtin_names())})", "name")
    return _load_builtin(name)


def resolve(name_or_path: str) -> RuleSet:
    """A built-in name, or the path of a club's TOML/JSON file."""
    if name_or_path in builtin_names():
        return builtin(name_or_path)
    if name_or_path.endswith((".toml", ".json")) or Path(name_or_path).exists():
        return load_profile(name_or_path)
    raise ProfileError(f"no built-in code of laws or profile file {name_or_path!r}", "name")
