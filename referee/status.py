"""The live terminal view (``rich``): score, cube, whose turn, the last play, infractions.

Two views of one :class:`StatusModel`:

* the **players' view** (default) shows what any spectator could see and the referee's
  rulings: never a hint, a legal play or a pip count.  Infractions are shown by their
  players' text (which the laws already keep free of plays and pips) and the rule cited;
  the last *completed* play is shown in notation, as a score sheet would.
* the **director's view** (``director=True``) adds the position ID and the director's notes.

>>> m = StatusModel(players=("Ann", "Bob"), match_length=5, score=(2, 1), cube=2, cube_owner="Bob",
...                 on_roll="Ann", last_play="Bob 64: 24/14")
>>> "Ann" in render_text(m) and "pip" not in render_text(m).lower()
True
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from referee.loop import LoopStats
from referee.session import Session
from rules.laws.verdicts import VerdictKind
from rules.record import Move


@dataclass(frozen=True, slots=True)
class StatusModel:
    players: tuple[str, str]
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    cube: int = 1
    cube_owner: str | None = None
    on_roll: str | None = None
    phase: str = ""
    game: int = 0
    last_play: str = ""
    infractions: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()
    faults: tuple[str, ...] = ()
    fps: float = 0.0
    dropped: int = 0
    corrupt: int = 0
    unread: int = 0  # frames vision failed on
    device: str = ""
    position_id: str = ""  # director's view only
    director_notes: tuple[str, ...] = ()  # director's view only


_FORBIDDEN = re.compile(r"\bpips?\b|\bhint\b|\blegal plays?\b|\bbest\b", re.IGNORECASE)


def model_of(session: Session, stats: LoopStats | None = None, *, device: str = "") -> StatusModel:
    m = session.machine
    names = session.info.players
    last = ""
    record = m.match_record()
    if record.games:
        for action in reversed(record.games[-1].actions):
            if isinstance(action, Move):
                d = action.dice
                last = f"{names[action.player]} {max(d)}{min(d)}: {action.play or '(no play)'}"
                break
    infractions = tuple(
        f"g{j.game} m{j.move} {names[j.verdict.offender] if j.verdict.offender is not None else ''}: "
        f"{j.verdict.players.text}"
        + (f" [{j.verdict.citation.code} {j.verdict.citation.rule}]" if j.verdict.citation else "")
        for j in session.infractions[-5:]
    )
    checks = tuple(
        f"g{j.game} m{j.move}: {j.verdict.players.text or 'please check the board'}"
        for j in session.judged[-8:]
        if j.verdict.kind is VerdictKind.CHECK or j.emitted.unsure
    )[-3:]
    faults = tuple(x for x in (session.stats.journal_problem, session.stats.evidence_problem,
                               stats.message if stats is not None else "") if x)
    return StatusModel(
        players=names,
        match_length=m.match.length,
        score=(m.match.score[0], m.match.score[1]),
        crawford=m.crawford_game,
        cube=m.cube.value,
        cube_owner=None if m.cube.owner is None else names[m.cube.owner],
        on_roll=None if m.on_roll is None else names[m.on_roll],
        phase=m.phase.value,
        game=session.tracker.state.game,
        last_play=last,
        infractions=infractions,
        checks=checks,
        faults=faults,
        fps=stats.fps if stats is not None else 0.0,
        dropped=stats.dropped if stats is not None else 0,
        corrupt=stats.corrupt if stats is not None else 0,
        unread=stats.unread if stats is not None else 0,
        device=device,
        position_id=session.snapshot()["position"],
        director_notes=tuple(j.verdict.director for j in session.judged[-3:] if j.verdict.director),
    )


def render(m: StatusModel, *, director: bool = False) -> Panel:
    """The status panel; the players' view unless ``director``."""
    head = Table.grid(padding=(0, 2))
    head.add_column(justify="left")
    head.add_column(justify="left")
    match = f"match to {m.match_length}" if m.match_length else "money game"
    if m.crawford:
        match += " (Crawford game)"
    head.add_row(Text("Score", style="bold"), f"{m.players[0]} {m.score[0]} - {m.score[1]} {m.players[1]}   {match}")
    cube = f"{m.cube} owned by {m.cube_owner}" if m.cube_owner else f"{m.cube} (centred)"
    head.add_row(Text("Cube", style="bold"), cube)
    head.add_row(Text("Game", style="bold"), f"{m.game}   {m.phase}")
    head.add_row(Text("On roll", style="bold"), m.on_roll or "-")
    head.add_row(Text("Last play", style="bold"), m.last_play or "-")
    parts: list[object] = [head]
    if m.infractions:
        t = Text("Infractions\n", style="bold red")
        for line in m.infractions:
            t.append(_players_safe(line) + "\n", style="red")
        parts.append(t)
    if m.checks:
        t = Text("Please check\n", style="bold yellow")
        for line in m.checks:
            t.append(_players_safe(line) + "\n", style="yellow")
        parts.append(t)
    if m.faults:
        t = Text("", style="bold magenta")
        for line in m.faults:
            t.append(line + "\n")
        parts.append(t)
    foot = f"{m.fps:.1f} fps, {m.dropped} dropped, {m.corrupt} corrupt"
    if m.unread:
        foot += f", {m.unread} unread by vision"
    if m.device:
        foot += f"   device: {m.device}"
    parts.append(Text(foot, style="dim"))
    if director:
        d = Text(f"position {m.position_id}\n", style="cyan")
        for n in m.director_notes:
            d.append(n + "\n")
        parts.append(d)
    return Panel(Group(*parts), title="bgref referee" + (" (director)" if director else ""), expand=False)  # type: ignore[arg-type]


def _players_safe(line: str) -> str:
    """Belt and braces: a line that would show the players a pip count or a hint is cut."""
    return "(see the director)" if _FORBIDDEN.search(line) else line


def render_text(m: StatusModel, *, director: bool = False, width: int = 100) -> str:
    """The view as plain text (for logs and tests)."""
    buf = io.StringIO()
    Console(file=buf, width=width, color_system=None, force_terminal=False).print(render(m, director=director))
    return buf.getvalue()
