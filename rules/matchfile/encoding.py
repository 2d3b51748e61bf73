"""Reading match files as text whatever their encoding and line endings.

Exporters write UTF-8 with or without a byte-order mark, Latin-1 (Windows-1252) and
UTF-16 with a mark; lines end in LF, CRLF or CR.

>>> decode("\\ufeffK\\u00e9vin\\r\\n".encode("utf-8")).text
'Kévin\\n'
>>> decode("K\\u00e9vin".encode("latin-1")).encoding
'cp1252'
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Decoded:
    """The text with ``\\n`` line ends, and what the bytes were."""

    text: str
    encoding: str
    bom: bool
    newline: str


def decode(data: bytes) -> Decoded:
    """Decode match-file bytes: BOM first, then strict UTF-8, then Windows-1252/Latin-1."""
    bom = False
    if data.startswith(codecs.BOM_UTF8):
        text, encoding, bom = data[len(codecs.BOM_UTF8) :].decode("utf-8", errors="replace"), "utf-8", True
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text, encoding, bom = data.decode("utf-16", errors="replace"), "utf-16", True
    else:
        try:
            text, encoding = data.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            try:
                text, encoding = data.decode("cp1252"), "cp1252"
            except UnicodeDecodeError:
                text, encoding = data.decode("latin-1"), "latin-1"
    if "\r\n" in text:
        newline = "\r\n"
    elif "\r" in text:
        newline = "\r"
    else:
        newline = "\n"
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return Decoded(text, encoding, bom, newline)
