"""Minted ids are never numbers to a loose JSON reader (the Inspector's CLI read one as such)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import pytest

from graphmem import keys


def _uuids(*hexes: str) -> Iterator[uuid.UUID]:
    for h in hexes:
        yield uuid.UUID(h.ljust(32, "0"))


@pytest.mark.parametrize("numeric", ["6932272128190000", "1234567e89012345", "0000000000000000"])
def test_an_id_a_json_reader_takes_for_a_number_is_drawn_again(
    monkeypatch: pytest.MonkeyPatch, numeric: str
) -> None:
    drawn = _uuids(numeric, "69322721281a0000")
    monkeypatch.setattr(keys.uuid, "uuid4", lambda: next(drawn))
    minted = keys.fresh_id(16)
    assert minted == "69322721281a0000"
    assert isinstance(_loose(minted), str)


def test_every_minted_id_stays_a_string() -> None:
    for length in (12, 16):
        for _ in range(2000):
            assert isinstance(_loose(keys.fresh_id(length)), str)


def _loose(value: str) -> object:
    """What the Inspector's ``--tool-arg`` does to a value: JSON if it parses, else text."""
    try:
        return json.loads(value)
    except ValueError:
        return value
