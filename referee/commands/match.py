"""``bgref match``: check recorded matches against the rules, convert between .mat and SGF.

    bgref match check FILE... [--json]
    bgref match convert IN OUT          (OUT's suffix picks the format: .sgf, else .mat)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rules.matchfile import MatchFileError, check_match, read_match, write_mat, write_sgf


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("match", help="check recorded matches (.mat, .txt, .sgf) and convert between formats")
    msub = p.add_subparsers(dest="match_command", metavar="ACTION")
    msub.required = True

    c = msub.add_parser("check", help="replay every game through the rules and report illegal plays")
    c.add_argument("files", nargs="+", metavar="FILE", help="match files (gnubg/Jellyfish text or SGF)")
    c.add_argument("--json", action="store_true", help="one JSON object per file on stdout")
    c.set_defaults(func=_check)

    v = msub.add_parser("convert", help="convert a match between .mat text and SGF")
    v.add_argument("input", metavar="IN")
    v.add_argument("output", metavar="OUT", help="'-' for stdout (as .mat unless --to sgf)")
    v.add_argument("--to", choices=("mat", "sgf"), help="output format (default: from OUT's suffix)")
    v.set_defaults(func=_convert)


def _check(args: argparse.Namespace) -> int:
    status = 0
    for name in args.files:
        try:
            report = check_match(name)
        except MatchFileError as exc:
            status = max(status, 2)
            if args.json:
                print(json.dumps({"file": name, "error": str(exc), "line": exc.line, "ok": False}))
            else:
                print(f"{name}: error: {exc.message}" + (f" (line {exc.line})" if exc.line else ""))
            continue
        if not report.ok:
            status = max(status, 1)
        if args.json:
            print(json.dumps(report.to_json(), ensure_ascii=False))
            continue
        verdict = "ok" if report.ok else f"{len(report.errors)} problem(s)"
        print(
            f"{name}: {report.games} game(s), {report.plays_checked} plays checked, "
            f"{len(report.illegal_plays)} illegal: {verdict}"
        )
        for issue in report.issues:
            print(f"  {issue}")
    return status


def _convert(args: argparse.Namespace) -> int:
    record = read_match(args.input)
    fmt = args.to or ("sgf" if str(args.output).lower().endswith(".sgf") else "mat")
    text = write_sgf(record) if fmt == "sgf" else write_mat(record)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text, encoding="utf-8")
    return 0
