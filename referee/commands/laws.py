"""``bgref laws``: the codes of laws the referee knows, their options and rules; check a club's file.

    bgref laws list                     # every built-in code of laws
    bgref laws show modern              # its options and the rule cited for each infraction
    bgref laws check my-club.toml       # read a club's own code (TOML or JSON), report errors
"""

from __future__ import annotations

import argparse

from rules.laws.codes import RuleSet, builtin, builtin_names, load_profile, resolve
from rules.laws.verdicts import Infraction


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("laws", help="list, show and check codes of laws")
    lsub = p.add_subparsers(dest="laws_command", metavar="ACTION")
    lsub.required = True
    p_list = lsub.add_parser("list", help="the built-in codes of laws")
    p_list.set_defaults(func=_list)
    p_show = lsub.add_parser("show", help="a code's options and rules")
    p_show.add_argument("name", help="a built-in name (see 'bgref laws list') or a profile file")
    p_show.set_defaults(func=_show)
    p_check = lsub.add_parser("check", help="check a club's code-of-laws file (TOML or JSON)")
    p_check.add_argument("profile", help="the file, e.g. my-club.toml")
    p_check.set_defaults(func=_check)


def _list(args: argparse.Namespace) -> int:
    names = builtin_names()
    width = max(len(n) for n in names)
    for name in names:
        rs = builtin(name)
        base = f"  (from {rs.base})" if rs.base else ""
        print(f"{name:<{width}}  {rs.title}{base}")
    return 0


def describe(rs: RuleSet) -> str:
    """A code of laws as text: title, source, options, and the rule for each infraction."""
    lines = [f"{rs.name}: {rs.title}"]
    if rs.source:
        lines.append(f"  source: {rs.source}")
    if rs.base:
        lines.append(f"  derived from: {rs.base}")
    lines.append("options:")
    for key, value in rs.options().items():
        shown = "true" if value is True else "false" if value is False else value
        lines.append(f"  {key} = {shown}")
    lines.append("rules cited:")
    for code in Infraction:
        c = rs.cite(code)
        lines.append(f"  {code.value:<22} rule {c.rule}: {c.says}")
    for key in ("opening", "opening-tie", "turn-end", "doubling", "crawford", "scoring", "chouette"):
        if rs.has_rule(key):
            c = rs.cite(key)
            lines.append(f"  {key:<22} rule {c.rule}: {c.says}")
    return "\n".join(lines)


def _show(args: argparse.Namespace) -> int:
    print(describe(resolve(args.name)))
    return 0


def _check(args: argparse.Namespace) -> int:
    rs = load_profile(args.profile)
    base = builtin(rs.base) if rs.base else None
    changed = [k for k, v in rs.options().items() if base is None or base.options()[k] != v]
    print(f"{args.profile}: ok: {rs.name} ({rs.title})" + (f", derived from {rs.base}" if rs.base else ""))
    for k in changed:
        print(f"  {k} = {rs.options()[k]}")
    return 0
