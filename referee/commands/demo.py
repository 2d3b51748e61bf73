"""``bgref demo``: the whole referee on a rendered game (the README's main command).

``bgref demo --rules`` is the earlier rules-only demo: a seeded random game played with legal
plays, with a few deliberately illegal plays judged on the way and printed readably.
"""

from __future__ import annotations

import argparse
import random

from rules.dice import Dice
from rules.judge import judge
from rules.moves import Play, legal_plays
from rules.position import OFF, Position, Side


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "demo",
        help="referee a rendered game end to end (simulated camera, vision, laws, device), in under a minute",
        description="The simulator plays a game with scripted infractions; bgref referees it through vision, "
        "the laws and the simulated device, shows the live status, and writes the match (.mat, .sgf), the "
        "evidence images and a summary. --json prints the summary as one JSON object on the last line.",
    )
    p.add_argument("--seed", type=int, default=1, help="random seed of the game (default 1)")
    p.add_argument("--turns", type=int, default=14, help="stop the game after this many turns (default 14)")
    p.add_argument("--per-kind", type=int, default=1, help="scripted infractions of each kind (default 1)")
    p.add_argument("--kinds", default="", help="comma-separated infraction kinds to stage (default: all)")
    p.add_argument("--size", default="1280x720",
                   help="rendered frame size WxH (default 1280x720: the real reader needs it; smaller sizes "
                   "run faster and mostly fall back to the oracle)")
    p.add_argument("--vision", choices=("auto", "real", "oracle"), default="auto",
                   help="auto (default): the real reader when it reads the set-up confidently, else the "
                   "renderer's truth, with the reason in the summary; real: insist on the reader")
    p.add_argument("--device", choices=("auto", "simavr", "emulator", "none"), default="auto",
                   help="auto: the firmware in simavr when installed, else the Python emulator (default)")
    p.add_argument("--out", default="bgref-demo", help="folder for the journal, exports and evidence")
    p.add_argument("--clean", action="store_true", help="a clean rendering (no sensor noise, drift)")
    p.add_argument("--no-status", action="store_true", help="no live view (a line per infraction instead)")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object (last line)")
    rules = p.add_argument_group("the rules-only demo (--rules)")
    rules.add_argument("--rules", action="store_true", help="the rules-only demo: judge plays, no camera")
    rules.add_argument("--plies", type=int, default=0, help="--rules: stop after this many plays")
    rules.add_argument("--illegal-every", type=int, default=7, help="--rules: an illegal play every N plays")
    rules.add_argument("--board", action="store_true", help="--rules: print a board diagram after every play")
    p.set_defaults(func=_main)


def _main(args: argparse.Namespace) -> int:
    if args.rules:
        return _run(args)
    from referee.demo import print_summary, run_demo

    if args.turns < 1 or args.per_kind < 0:
        raise ValueError(f"--turns must be >= 1 and --per-kind >= 0, got {args.turns} and {args.per_kind}")
    summary = run_demo(args)
    print_summary(summary, as_json=args.json)
    return 0


def _cheat(before: Position, play: Play, rng: random.Random) -> tuple[str, Position] | None:
    """A plausible wrong play next to ``play``: one die left out, or one checker a pip too far."""
    if not play.steps:
        return None
    mover = before.turn
    counts = list(play.after.counts(mover))
    if len(play.steps) >= 2 and rng.random() < 0.5:
        last = play.steps[-1]
        counts[last.end] -= 1
        counts[last.start] += 1
        opp = play.after.counts(mover.opponent)
        if last.hit:  # the hit of the step left out does not happen either
            o = list(opp)
            o[25] -= 1
            o[25 - last.end] += 1
            opp = tuple(o)
        what = "leaves one die unplayed"
        after = play.after.replace(mover, tuple(counts)).replace(mover.opponent, opp)
        return what, after
    step = play.steps[0]
    if step.end <= 1:
        return None
    counts[step.end] -= 1
    counts[step.end - 1] += 1
    after = play.after.replace(mover, tuple(counts))
    return f"moves a checker one pip further than {step.start}/{step.end}", after


def _run(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    pos = Position.initial(Side.WHITE if rng.random() < 0.5 else Side.BLACK)
    print(f"bgref rules demo (seed {args.seed}): a game of random legal plays")
    print(pos.diagram())
    ply = 0
    caught = 0
    while pos.winner() is None and (not args.plies or ply < args.plies):
        ply += 1
        dice = Dice(rng.randint(1, 6), rng.randint(1, 6))
        plays = legal_plays(pos, dice)
        play = list(plays)[rng.randrange(len(plays))]
        who = pos.turn.name.lower()
        if args.illegal_every and ply % args.illegal_every == 0:
            cheat = _cheat(pos, play, rng)
            if cheat is not None:
                what, wrong = cheat
                verdict = judge(pos, dice, wrong, plays=plays)
                print(f"{ply:3d}. {who:5s} {dice}: ATTEMPT that {what}")
                for line in verdict.summary().splitlines():
                    print("       " + line)
                caught += not verdict.legal
        check = judge(pos, dice, play.after, plays=plays)
        assert check.legal
        print(f"{ply:3d}. {who:5s} {dice}: {play.notation() or '(cannot move)':<24} -> {play.after.gnubg_id()}")
        pos = play.after
        if args.board:
            print(pos.diagram())
    winner = pos.winner()
    if winner is not None:
        loser = winner.opponent
        kind = "single"
        if pos.counts(loser)[OFF] == 0:
            home = range(19, 26)
            kind = "backgammon" if any(pos.counts(loser)[p] for p in home) else "gammon"
        print(f"{winner.name.lower()} wins ({kind}) after {ply} plays; {caught} illegal attempt(s) caught")
    else:
        print(f"stopped after {ply} plays; {caught} illegal attempt(s) caught")
    print(pos.diagram())
    return 0
