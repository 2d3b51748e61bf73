"""The laws of backgammon as a state machine: events in, verdicts out, codes of laws as data.

* :mod:`rules.laws.events` - what the camera side reports (frozen dataclasses)
* :mod:`rules.laws.verdicts` - what the machine answers (ok / infraction / check)
* :mod:`rules.laws.codes` - :class:`RuleSet`, the built-in codes and club profiles
* :mod:`rules.laws.machine` - :class:`BoardMachine`, the per-board state machine
* :mod:`rules.laws.cube`, :mod:`rules.laws.scoring` - the cube, results and match scores
* :mod:`rules.laws.chouette`, :mod:`rules.laws.quartet` - the multi-player forms
* :mod:`rules.laws.replay` - events made from game records, and replaying whole matches
"""

from rules.laws.codes import ProfileError, RuleSet, builtin, builtin_names, load_profile, resolve
from rules.laws.verdicts import Citation, Infraction, PlayersView, Remedy, Verdict, VerdictKind

__all__ = [
    "Citation",
    "Infraction",
    "PlayersView",
    "ProfileError",
    "Remedy",
    "RuleSet",
    "Verdict",
    "VerdictKind",
    "builtin",
    "builtin_names",
    "load_profile",
    "resolve",
]
