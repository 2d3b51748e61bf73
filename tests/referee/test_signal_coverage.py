"""Every infraction the laws can call must map to something the device can show."""

from __future__ import annotations

from referee.signals import FAULT_OF
from rules.laws.verdicts import Infraction


def test_every_infraction_has_a_device_fault() -> None:
    missing = [i for i in Infraction if i not in FAULT_OF]
    assert missing == []
