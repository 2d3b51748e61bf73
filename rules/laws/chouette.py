"""Chouette: one player (the box) against a team led by a captain (the active player).

Seating is by thrown dice, highest first (ties are thrown again among those tied): the
highest is the box, the next the captain, then the team in order.  Each team member has
his own stake and, where the code allows, his own cube: when the box doubles, each
member takes or passes for himself.  How a pass is paid follows the code in force:

* modern / club (``pays-box``): the member pays the box the value before the double and
  is out of this game;
* 1931 (``pays-active-assumes``): he pays his stake to the box and the active player
  takes on his share for the rest of the game;
* Bar Point (``pays-playing-member``): he pays his stake to the playing member, who
  takes on his share against the box.

If the active player passes and a partner takes, the first partner (in team order) who
took becomes the active player for the rest of the game.  After each game: if the box
won he keeps the box and the captain goes to the end of the team; if the team won, the
captain (the active player) takes the box and the old box goes to the end of the team.
Players join (at the end of the team) and leave between games.  The ledger is in stake
units and always sums to zero.

>>> from rules.laws.codes import builtin
>>> c = Chouette(builtin("modern"), ["Ann", "Bob", "Cy"])
>>> c.box, c.captain
('Ann', 'Bob')
>>> c.start_game()
>>> _ = c.box_doubles({"Bob": True, "Cy": False})
>>> c.finish(winner_is_box=False, multiplier=1)
>>> dict(c.ledger)
{'Ann': -1, 'Bob': 2, 'Cy': -1}
>>> c.box, c.team
('Bob', ('Cy', 'Ann'))
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from rules.laws.codes import RefusedDouble, RuleSet


class ChouetteError(ValueError):
    """An action that the chouette's state does not allow (names the player and why)."""


def order_by_throws(players: Sequence[str], throw: Callable[[str], int]) -> tuple[str, ...]:
    """Order players by a single die each, highest first; ties are thrown again among the tied.

    ``throw(name)`` returns the die a player throws (a seeded generator or the camera).
    """
    if len(set(players)) != len(players):
        raise ChouetteError(f"players must have different names: {list(players)!r}")
    if len(players) <= 1:
        return tuple(players)
    by_value: dict[int, list[str]] = {}
    for name in players:
        v = throw(name)
        if not 1 <= v <= 6:
            raise ChouetteError(f"{name} threw {v!r}: a die shows 1-6")
        by_value.setdefault(v, []).append(name)
    out: list[str] = []
    for v in sorted(by_value, reverse=True):
        group = by_value[v]
        out.extend(order_by_throws(group, throw) if len(group) > 1 else group)
    return tuple(out)


def seeded_throws(seed: int) -> Callable[[str], int]:
    rng = random.Random(seed)
    return lambda _name: rng.randint(1, 6)


@dataclass(frozen=True, slots=True)
class Member:
    """A team member's part in the current game."""

    name: str
    cube: int = 1  # the value of his game against the box
    owner_is_box: bool | None = None  # None: centred; True: the box holds his cube; False: he does
    shares: int = 1  # his own share plus any he has taken on
    in_game: bool = True


@dataclass(frozen=True, slots=True)
class Payment:
    payer: str
    payee: str
    amount: int
    why: str


class Chouette:
    """A running chouette: seating, the game in progress, rotation and the ledger."""

    def __init__(self, rules: RuleSet, order: Sequence[str], *, stake: int = 1) -> None:
        if len(order) < 3:
            raise ChouetteError(f"a chouette needs at least three players, got {list(order)!r}")
        if len(set(order)) != len(order):
            raise ChouetteError(f"players must have different names: {list(order)!r}")
        if stake < 1:
            raise ChouetteError(f"the stake must be at least 1, got {stake!r}")
        self.rules = rules
        self.stake = stake
        self.box: str = order[0]
        self.team: tuple[str, ...] = tuple(order[1:])
        self._ledger: dict[str, int] = dict.fromkeys(order, 0)
        self.members: dict[str, Member] = {}
        self.active: str | None = None
        self.payments: list[Payment] = []
        self.in_progress = False

    @classmethod
    def seated(cls, rules: RuleSet, players: Sequence[str], throw: Callable[[str], int], *, stake: int = 1) -> Chouette:
        """Seat the players by thrown dice and open the chouette."""
        return cls(rules, order_by_throws(players, throw), stake=stake)

    # ------------------------------------------------------------------ views
    @property
    def captain(self) -> str:
        return self.team[0]

    @property
    def ledger(self) -> tuple[tuple[str, int], ...]:
        return tuple(self._ledger.items())

    def _pay(self, payer: str, payee: str, amount: int, why: str) -> None:
        self._ledger[payer] -= amount
        self._ledger[payee] += amount
        self.payments.append(Payment(payer, payee, amount, why))

    # ------------------------------------------------------------------ between games
    def join(self, name: str) -> None:
        if self.in_progress:
            raise ChouetteError(f"{name} may join only between games")
        if name in self._ledger and (name == self.box or name in self.team):
            raise ChouetteError(f"{name} is already playing")
        self.team = (*self.team, name)
        self._ledger.setdefault(name, 0)

    def leave(self, name: str) -> None:
        if self.in_progress:
            raise ChouetteError(f"{name} may leave only between games")
        if name == self.box:
            if len(self.team) < 3:
                raise ChouetteError("a chouette needs at least three players")
            self.box, self.team = self.team[0], self.team[1:]
        elif name in self.team:
            if len(self.team) < 3:
                raise ChouetteError("a chouette needs at least three players")
            self.team = tuple(n for n in self.team if n != name)
        else:
            raise ChouetteError(f"{name} is not playing")

    # ------------------------------------------------------------------ a game
    def start_game(self) -> None:
        self.members = {n: Member(n) for n in self.team}
        self.active = self.captain
        self.in_progress = True

    def _need_game(self) -> None:
        if not self.in_progress:
            raise ChouetteError("no chouette game in progress")

    def box_doubles(self, decisions: dict[str, bool]) -> list[Payment]:
        """The box doubles; ``decisions`` says for each member still in whether he takes.

        Without individual cube decisions the active player decides for the whole team.
        Returns the payments made for passes.
        """
        self._need_game()
        live = [n for n in self.team if self.members[n].in_game]
        for n in live:
            m = self.members[n]
            if m.owner_is_box is False:
                raise ChouetteError(f"the box cannot double {n}: {n} holds his cube")
        if not self.rules.chouette_individual_cube:
            assert self.active is not None
            decisions = dict.fromkeys(live, decisions[self.active])
        missing = [n for n in live if n not in decisions]
        if missing:
            raise ChouetteError(f"no take/pass decision for {', '.join(missing)}")
        before = len(self.payments)
        takers = [n for n in live if decisions[n]]
        passers = [n for n in live if not decisions[n]]
        for n in takers:
            m = self.members[n]
            self.members[n] = replace(m, cube=m.cube * 2, owner_is_box=False)
        if not takers:
            for n in passers:
                m = self.members[n]
                self._pay(n, self.box, m.cube * m.shares * self.stake, "passed the box's double")
                self.members[n] = replace(m, in_game=False)
            self.in_progress = False
            self._rotate(box_won=True, winner=None)
            return self.payments[before:]
        if self.active in passers:
            self.active = takers[0]  # the position passes to the next partner who took
        assert self.active is not None
        rule = self.rules.chouette_refused_double
        for n in passers:
            m = self.members[n]
            owed = m.cube * m.shares * self.stake
            self.members[n] = replace(m, in_game=False)
            if rule is RefusedDouble.PAYS_BOX:
                self._pay(n, self.box, owed, "passed the box's double")
                continue
            a = self.members[self.active]
            if rule is RefusedDouble.PAYS_ACTIVE_ASSUMES:
                self._pay(n, self.box, owed, "passed the box's double; the active player takes on his share")
            else:
                self._pay(n, self.active, owed, "retired from the box's double; paid to the playing member")
            # the active player's game against the box now carries the extra share(s) at the new value
            self.members[self.active] = replace(a, shares=a.shares + m.shares)
        return self.payments[before:]

    def team_doubles(self, box_takes: dict[str, bool]) -> list[Payment]:
        """The team (members who hold or share a centred cube) doubles the box.

        ``box_takes`` says, per member doubling, whether the box takes his cube.
        """
        self._need_game()
        before = len(self.payments)
        for n, take in box_takes.items():
            m = self.members.get(n)
            if m is None or not m.in_game:
                raise ChouetteError(f"{n} is not in this game")
            if m.owner_is_box is True:
                raise ChouetteError(f"{n} cannot double: the box holds his cube")
            if take:
                self.members[n] = replace(m, cube=m.cube * 2, owner_is_box=True)
            else:
                self._pay(self.box, n, m.cube * m.shares * self.stake, "the box passed")
                self.members[n] = replace(m, in_game=False)
        if not any(m.in_game for m in self.members.values()):
            self.in_progress = False
            self._rotate(box_won=False, winner=self.active)
        return self.payments[before:]

    def finish(self, *, winner_is_box: bool, multiplier: int = 1) -> None:
        """Settle the game: 1, 2 or 3 (single, gammon, backgammon) times each member's cube."""
        self._need_game()
        if multiplier not in (1, 2, 3):
            raise ChouetteError(f"a game is worth 1, 2 or 3 times the cube, got {multiplier!r}")
        for m in self.members.values():
            if not m.in_game:
                continue
            amount = multiplier * m.cube * m.shares * self.stake
            if winner_is_box:
                self._pay(m.name, self.box, amount, "lost to the box")
            else:
                self._pay(self.box, m.name, amount, "beat the box")
        self.in_progress = False
        self._rotate(box_won=winner_is_box, winner=self.active)

    def _rotate(self, *, box_won: bool, winner: str | None) -> None:
        if box_won or winner is None:
            self.team = (*self.team[1:], self.team[0])
            return
        old_box = self.box
        self.box = winner
        rest = tuple(n for n in self.team if n != winner)
        self.team = (*rest, old_box)
