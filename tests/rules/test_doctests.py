"""The examples in the rules modules' docstrings run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["rules.position", "rules.dice", "rules.moves", "rules.notation", "rules.judge", "rules.ids"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0
