"""Ask GNU Backgammon for every legal play of many (position, roll) cases in ONE gnubg run.

Two faces in one file:

* run by gnubg itself (``gnubg -t -q -p scripts/gnubg_peer.py``, with the environment
  variables ``BGREF_PEER_IN`` / ``BGREF_PEER_OUT``): for each input line
  ``POSITION_ID D1 D2`` it sets the board and the dice, lists every play with
  ``hint`` at 0-ply (gnubg evaluates every play its move generator produces, so the
  list is the generator's output), turns each play's checker moves (``parsemove``) into
  the resulting board and writes ``POSITION_ID D1 D2<TAB>AFTER_ID=MOVE<TAB>...``; a
  roll with no play gives no entries;
* imported on the host side: :func:`gnubg_plays` writes the requests, runs gnubg
  once and reads the answers back as ``{(position_id, "31"): {after_id: gnubg_move}}``.

The long run named in the README (10,000 positions, all 21 rolls each)::

    .venv/bin/python scripts/gnubg_peer.py --positions 10000 --seed 7

It compares the sets of resulting positions with bgref's generator and exits
non-zero on any difference.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence


def _in_gnubg() -> None:  # pragma: no cover - runs inside gnubg's own Python
    import gnubg

    src, dst = os.environ["BGREF_PEER_IN"], os.environ["BGREF_PEER_OUT"]
    gnubg.command("set player 0 human")
    gnubg.command("set player 1 human")
    gnubg.command("set evaluation chequerplay evaluation plies 0")
    gnubg.command("set evaluation chequerplay evaluation prune off")
    gnubg.command("set evaluation chequerplay evaluation cubeful off")
    gnubg.command("new game")
    timed = os.environ.get("BGREF_PEER_TIME") == "1"
    t_hint = 0.0
    with open(src) as fin, open(dst, "w") as fout:
        for line in fin:
            parts = line.split()
            if len(parts) != 3:
                continue
            pid, d1, d2 = parts
            gnubg.command("set board " + pid)
            gnubg.command(f"set dice {d1} {d2}")
            t0 = time.perf_counter()
            try:
                hint = gnubg.hint(100000)
                moves = [h["move"] for h in hint["hint"]]
            except Exception:  # gnubg raises when there is no legal play
                moves = []
            t_hint += time.perf_counter() - t0
            entries = []
            for move in moves:
                me_opp = gnubg.board()
                opp = list(me_opp[0])
                me = list(me_opp[1])
                for a, b in gnubg.parsemove(move):
                    me[a - 1] -= 1
                    if b > 0:
                        me[b - 1] += 1
                        if opp[24 - b] == 1:
                            opp[24 - b] = 0
                            opp[24] += 1
                after = gnubg.positionid((tuple(me), tuple(opp)))
                entries.append(f"{after}={move}")
            fout.write("\t".join([f"{pid} {d1} {d2}", *entries]) + "\n")
        if timed:
            fout.write(f"#hint-seconds {t_hint}\n")


def gnubg_plays(
    cases: list[tuple[str, int, int]],
    gnubg_path: str,
    *,
    workdir: str | None = None,
    timeout: float = 1800.0,
    timed: bool = False,
) -> tuple[dict[tuple[str, str], dict[str, str]], float]:
    """Run gnubg once over ``cases`` (position ID, die, die).

    Returns ``({(position_id, "d1d2"): {after_id: move}}, seconds spent inside hint)``.
    """
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        src = os.path.join(tmp, "in.txt")
        dst = os.path.join(tmp, "out.txt")
        with open(src, "w") as f:
            for pid, d1, d2 in cases:
                f.write(f"{pid} {d1} {d2}\n")
        env = dict(os.environ, BGREF_PEER_IN=src, BGREF_PEER_OUT=dst, BGREF_PEER_TIME="1" if timed else "0")
        proc = subprocess.run(
            [gnubg_path, "-t", "-q", "-p", os.path.abspath(__file__)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=timeout,
            check=False,
            cwd=tmp,
        )
        if not os.path.exists(dst):
            raise RuntimeError(f"gnubg wrote no answers (exit {proc.returncode}): {proc.stderr[-500:]!r}")
        out: dict[tuple[str, str], dict[str, str]] = {}
        hint_seconds = 0.0
        with open(dst) as f:
            for line in f:
                if line.startswith("#hint-seconds"):
                    hint_seconds = float(line.split()[1])
                    continue
                fields = line.rstrip("\n").split("\t")
                pid, r1, r2 = fields[0].split()
                plays: dict[str, str] = {}
                for entry in fields[1:]:
                    after, _, move = entry.partition("=")
                    plays.setdefault(after, move)
                out[(pid, f"{r1}{r2}")] = plays
        wanted = {(pid, f"{d1}{d2}") for pid, d1, d2 in cases}
        if set(out) != wanted:
            raise RuntimeError(f"gnubg answered {len(out)} of {len(wanted)} cases: {proc.stderr[-500:]!r}")
        return out, hint_seconds


def compare(
    positions: Sequence[object], gnubg_path: str, *, timed: bool = False, stats: dict[str, int] | None = None
) -> tuple[list[str], int, float]:
    """Compare bgref's legal plays with gnubg's for all 21 rolls of each position.

    Also reads every gnubg move string back with bgref's notation parser (it must
    denote the same resulting position) and counts how often bgref writes the very
    same string (``stats``: plays, same_text, parse_errors).

    Returns (differences as text, cases compared, seconds inside gnubg's hint).
    """
    from rules.dice import Dice
    from rules.moves import legal_plays
    from rules.notation import parse_play
    from rules.position import Position

    if stats is None:
        stats = {}
    for k in ("plays", "same_text", "parse_errors"):
        stats.setdefault(k, 0)

    cases: list[tuple[str, int, int]] = []
    by_id: dict[str, Position] = {}
    for pos in positions:
        assert isinstance(pos, Position)
        pid = pos.gnubg_id()
        by_id[pid] = pos
        for dice in Dice.all_rolls():
            cases.append((pid, dice.high, dice.low))
    answers, hint_seconds = gnubg_plays(cases, gnubg_path, timed=timed)
    diffs: list[str] = []
    for (pid, roll), theirs in answers.items():
        pos = by_id[pid]
        plays = legal_plays(pos, Dice.parse(roll))
        ours = {p.after.gnubg_id(): p.notation() for p in plays}
        if not theirs:  # no legal play: the board stays, the opponent is on roll
            theirs = {pos.swap_turn().gnubg_id(): ""}
        for after_id, move in theirs.items():
            stats["plays"] += 1
            stats["same_text"] += ours.get(after_id) == move
            try:
                parsed = parse_play(move, pos, Dice.parse(roll), plays=plays)
                if parsed.after.gnubg_id() != after_id:
                    raise ValueError(f"reads as {parsed.notation()}")
            except ValueError as exc:
                stats["parse_errors"] += 1
                diffs.append(f"{pid} {roll}: gnubg's {move!r} misread: {exc}")
        if set(ours) != set(theirs):
            only_ours = sorted(ours[k] for k in set(ours) - set(theirs))
            only_theirs = sorted(theirs[k] for k in set(theirs) - set(ours))
            diffs.append(f"{pid} {roll}: only bgref {only_ours}; only gnubg {only_theirs}")
    return diffs, len(cases), hint_seconds


def golden_digest(after_ids: list[str] | set[str]) -> str:
    """A short digest of a set of resulting Position IDs."""
    import hashlib

    return hashlib.sha1(" ".join(sorted(after_ids)).encode("ascii")).hexdigest()[:16]


def write_golden(positions: Sequence[object], gnubg_path: str, out_path: str, seed: int) -> int:
    """Write gnubg's legal plays as ``position_id roll count digest`` lines (a golden file)."""
    from rules.dice import Dice
    from rules.position import Position

    cases: list[tuple[str, int, int]] = []
    turn_of: dict[str, Position] = {}
    for pos in positions:
        assert isinstance(pos, Position)
        turn_of[pos.gnubg_id()] = pos
        cases.extend((pos.gnubg_id(), d.high, d.low) for d in Dice.all_rolls())
    answers, _ = gnubg_plays(cases, gnubg_path)
    with open(out_path, "w") as f:
        f.write(f"# gnubg's legal plays: positions from rules.bench.peer_positions({seed}, {len(positions)}),\n")
        f.write("# all 21 rolls; position_id roll count sha1-of-sorted-after-ids[:16]\n")
        f.write("# written by: scripts/gnubg_peer.py --golden FILE --seed S --positions N\n")
        for (pid, roll), plays in sorted(answers.items()):
            afters = set(plays) or {turn_of[pid].swap_turn().gnubg_id()}
            f.write(f"{pid} {roll} {len(afters)} {golden_digest(afters)}\n")
    print(f"wrote {len(answers)} cases to {out_path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    import argparse
    import shutil

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from rules.bench import peer_positions

    parser = argparse.ArgumentParser(description="compare bgref's legal plays with gnubg's")
    parser.add_argument("--positions", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--gnubg", default=shutil.which("gnubg") or "/usr/games/gnubg")
    parser.add_argument("--chunk", type=int, default=2000, help="positions per gnubg run")
    parser.add_argument("--golden", metavar="FILE", help="write gnubg's answers as a golden file instead")
    args = parser.parse_args(argv)
    positions = peer_positions(args.seed, args.positions)
    if args.golden:
        return write_golden(positions, args.gnubg, args.golden, args.seed)
    total_cases = 0
    all_diffs: list[str] = []
    t0 = time.perf_counter()
    for start in range(0, len(positions), args.chunk):
        diffs, n, _hint = compare(list(positions[start : start + args.chunk]), args.gnubg)
        total_cases += n
        all_diffs.extend(diffs)
        print(f"{start + min(args.chunk, len(positions) - start)} positions, {total_cases} cases, "
              f"{len(all_diffs)} differences, {time.perf_counter() - t0:.0f} s", flush=True)
    for d in all_diffs[:50]:
        print(d)
    print(f"{'OK' if not all_diffs else 'DIFFERENT'}: {len(positions)} positions x 21 rolls = {total_cases} cases, "
          f"{len(all_diffs)} differences from gnubg")
    return 1 if all_diffs else 0


if __name__ == "__main__":
    if "gnubg" in sys.modules or os.environ.get("BGREF_PEER_IN"):
        _in_gnubg()
    else:
        sys.exit(main())
