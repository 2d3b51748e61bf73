"""``bgref bench rules``: how fast legal plays are generated and plays judged.

The positions come from seeded random games (:func:`sample_positions`), so every run
measures the same set.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from rules.dice import Dice
from rules.moves import legal_plays
from rules.position import Position, Side


def random_games(seed: int) -> Iterator[tuple[Position, Dice, Position]]:
    """Endless (before, dice, after) triples from games played with random legal plays."""
    rng = random.Random(seed)
    while True:
        pos = Position.initial(Side.WHITE if rng.random() < 0.5 else Side.BLACK)
        while pos.winner() is None:
            dice = Dice(rng.randint(1, 6), rng.randint(1, 6))
            plays = list(legal_plays(pos, dice))
            play = plays[rng.randrange(len(plays))]
            yield pos, dice, play.after
            pos = play.after


def sample_positions(seed: int, n: int) -> list[Position]:
    """``n`` distinct positions (side on roll set) met in seeded random games."""
    seen: set[Position] = set()
    out: list[Position] = []
    for pos, _dice, _after in random_games(seed):
        if pos not in seen:
            seen.add(pos)
            out.append(pos)
            if len(out) >= n:
                break
    return out


def peer_positions(seed: int, n: int) -> list[Position]:
    """``n`` distinct positions from seeded random games, a third each with the mover on the bar,
    bearing off (all checkers home) and anything else (so entries and bear-offs are well covered)."""
    want = [n // 3, n // 3, n - 2 * (n // 3)]
    buckets: list[list[Position]] = [[], [], []]
    seen: set[str] = set()  # by gnubg ID: a position and its mirror image are one case for gnubg
    for pos, _dice, _after in random_games(seed):
        pid = pos.gnubg_id()
        if pid in seen:
            continue
        me = pos.on_roll
        kind = 0 if me[25] else 1 if not any(me[7:26]) else 2
        if len(buckets[kind]) < want[kind]:
            seen.add(pid)
            buckets[kind].append(pos)
            if all(len(b) >= w for b, w in zip(buckets, want, strict=True)):
                break
    return [p for b in buckets for p in b]


# ---------------------------------------------------------------------- the benchmark
def _median(xs: list[float]) -> float:
    s = sorted(xs)
    n = len(s)
    if not n:
        return float("nan")
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _perturb(before: Position, after: Position, rng: random.Random) -> Position:
    """A wrong board next to ``after``: one mover's checker one pip further (or back)."""
    mover = before.turn
    c = list(after.counts(mover))
    points = [p for p in range(1, 26) if c[p]]
    if not points:
        return before.swap_turn()
    p = rng.choice(points)
    q = p - 1 if p > 1 else 0
    c[p] -= 1
    c[q] += 1
    return after.replace(mover, tuple(c))


def _load_peer() -> object | None:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "scripts" / "gnubg_peer.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location("bgref_gnubg_peer", path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(
    n_positions: int = 200, seed: int = 2024, repeat: int = 3, gnubg: str | None = None
) -> dict[str, object]:
    """Time generation and judging over ``n_positions`` x 21 rolls; optionally gnubg on the same set."""
    import time

    from rules.judge import judge

    positions = sample_positions(seed, n_positions)
    rolls = Dice.all_rolls()
    gen_single: list[float] = []
    gen_double: list[float] = []
    n_plays = 0
    judge_legal: list[float] = []
    judge_illegal: list[float] = []
    rng = random.Random(seed)
    clock = time.perf_counter
    for pos in positions:
        for dice in rolls:
            best = float("inf")
            for _ in range(repeat):
                t0 = clock()
                plays = list(legal_plays(pos, dice))
                best = min(best, clock() - t0)
            n_plays += len(plays)
            (gen_double if dice.is_double else gen_single).append(best * 1e3)
            after = plays[rng.randrange(len(plays))].after
            wrong = _perturb(pos, after, rng)
            for board, bucket in ((after, judge_legal), (wrong, judge_illegal)):
                best = float("inf")
                for _ in range(repeat):
                    t0 = clock()
                    judge(pos, dice, board)
                    best = min(best, clock() - t0)
                bucket.append(best * 1e3)
    all_gen = gen_single + gen_double
    result: dict[str, object] = {
        "positions": len(positions),
        "cases": len(all_gen),
        "plays": n_plays,
        "seed": seed,
        "gen_ms_median_non_doubles": _median(gen_single),
        "gen_ms_median_doubles": _median(gen_double),
        "gen_ms_worst": max(all_gen),
        "gen_plays_per_s": n_plays / (sum(all_gen) / 1e3),
        "gen_cases_per_s": len(all_gen) / (sum(all_gen) / 1e3),
        "judge_ms_median_legal": _median(judge_legal),
        "judge_ms_median_illegal": _median(judge_illegal),
        "judge_ms_worst": max(judge_legal + judge_illegal),
        "judgments_per_s": len(judge_legal + judge_illegal) / (sum(judge_legal + judge_illegal) / 1e3),
    }
    if gnubg:
        peer = _load_peer()
        if peer is None:
            result["gnubg"] = "scripts/gnubg_peer.py not found"
        else:
            cases = [(p.gnubg_id(), d.high, d.low) for p in positions for d in rolls]
            t0 = clock()
            answers, hint_seconds = peer.gnubg_plays(cases, gnubg, timed=True)  # type: ignore[attr-defined]
            wall = clock() - t0
            ours_total = sum(all_gen) / 1e3
            result["gnubg_ms_per_case"] = hint_seconds / len(cases) * 1e3
            result["gnubg_wall_s"] = wall
            result["ratio_bgref_to_gnubg"] = ours_total / hint_seconds if hint_seconds else float("nan")
            result["gnubg_plays"] = sum(len(v) for v in answers.values())
    return result


TARGETS = {
    "gen_ms_median_non_doubles": 0.2,
    "gen_ms_median_doubles": 1.0,
    "gen_ms_worst": 20.0,
    "judge_ms_median_legal": 1.0,
}


def main(argv: list[str] | None = None) -> int:
    """``bgref bench rules [--positions N] [--seed S] [--repeat R] [--no-gnubg] [--json]``."""
    import argparse
    import json
    import shutil

    parser = argparse.ArgumentParser(prog="bgref bench rules", description=main.__doc__)
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--repeat", type=int, default=3, help="time each case R times, keep the fastest")
    parser.add_argument("--no-gnubg", action="store_true", help="skip timing gnubg on the same set")
    parser.add_argument("--gnubg", default=shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    gnubg = None if args.no_gnubg else args.gnubg
    r = run(args.positions, args.seed, args.repeat, gnubg)
    if args.json:
        print(json.dumps(r, indent=1))
    else:
        print(f"rules benchmark: {r['positions']} positions x 21 rolls = {r['cases']} cases, "
              f"{r['plays']} plays (seed {r['seed']})")
        for key, label in (
            ("gen_ms_median_non_doubles", "generation, median, non-doubles"),
            ("gen_ms_median_doubles", "generation, median, doubles"),
            ("gen_ms_worst", "generation, worst case"),
            ("judge_ms_median_legal", "judging a legal play, median"),
            ("judge_ms_median_illegal", "judging an illegal play, median"),
            ("judge_ms_worst", "judging, worst case"),
        ):
            value = r[key]
            assert isinstance(value, float)
            target = TARGETS.get(key)
            verdict = "" if target is None else f"  (target <= {target} ms: {'met' if value <= target else 'MISSED'})"
            print(f"  {label:<36} {value:8.3f} ms{verdict}")
        print(f"  plays generated per second            {r['gen_plays_per_s']:10.0f}")
        print(f"  positions+rolls per second            {r['gen_cases_per_s']:10.0f}")
        print(f"  judgments per second                  {r['judgments_per_s']:10.0f}")
        if "gnubg_ms_per_case" in r:
            print(f"  gnubg hint (0-ply) per position+roll  {r['gnubg_ms_per_case']:8.3f} ms "
                  "(includes gnubg evaluating every play)")
            print(f"  time ratio bgref / gnubg              {r['ratio_bgref_to_gnubg']:8.3f}")
        elif gnubg is None and not args.no_gnubg:
            print("  gnubg not found: no ratio (apt-get install gnubg)")
    return 0
