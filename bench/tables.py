"""Markdown tables for the bench scripts' results (one row a dict)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def markdown(rows: list[dict], columns: Sequence[tuple[str, str]]) -> str:
    """A right-aligned table of ``columns`` (key, label); a column no row has is left out."""
    cols = [(k, label) for k, label in columns if any(k in r for r in rows)]
    head = "| " + " | ".join(label for _, label in cols) + " |"
    rule = "|" + "|".join("---:" for _ in cols) + "|"

    def cell(v: Any) -> str:
        if v is None:
            return "–"
        return f"{v:,.2f}" if isinstance(v, float) and v < 100 else f"{v:,.0f}"

    body = ["| " + " | ".join(cell(r.get(k)) for k, _ in cols) + " |" for r in rows]
    return "\n".join([head, rule, *body])
