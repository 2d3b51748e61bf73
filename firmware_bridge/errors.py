"""The device error family, rooted at :class:`DeviceError`."""

from __future__ import annotations


class DeviceError(Exception):
    """Anything that went wrong talking to the LED/buzzer device."""


class DeviceTimeout(DeviceError, TimeoutError):
    """The device did not answer in time (after every retransmission)."""


class DeviceProtocolError(DeviceError, ValueError):
    """The device answered, but not as the protocol says (NAK for a well-formed command, wrong version)."""


class DeviceConnectionError(DeviceError, ConnectionError):
    """The port could not be opened, or it went away (unplugged, peer killed)."""
