"""The file formats the graph exports to, and the files each writes.

Apart from ``export`` so the CLI can offer them without importing networkx.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ValidationError

FORMATS: tuple[str, ...] = ("graphml", "gexf", "json", "cytoscape", "dot", "csv")
_SUFFIXES = {
    ".graphml": "graphml",
    ".xml": "graphml",
    ".gexf": "gexf",
    ".json": "json",
    ".cyjs": "cytoscape",
    ".dot": "dot",
    ".gv": "dot",
    ".csv": "csv",
}


def format_for(path: str | Path, format: str | None = None) -> str:
    """The export format: ``format`` if given, else guessed from the file's suffix."""
    if format is not None:
        fmt = format.lower()
        if fmt not in FORMATS:
            raise ValidationError(f"unknown format {format!r}; expected {', '.join(FORMATS)}")
        return fmt
    suffix = Path(path).suffix.lower()
    if suffix not in _SUFFIXES:
        raise ValidationError(
            f"cannot tell the format from '{Path(path).name}'; give one of {', '.join(FORMATS)}"
        )
    return _SUFFIXES[suffix]


def csv_paths(path: str | Path) -> tuple[Path, Path]:
    """The two files a CSV export writes: ``<stem>-nodes.csv`` and ``<stem>-edges.csv``."""
    path = Path(path)
    return path.with_name(f"{path.stem}-nodes.csv"), path.with_name(f"{path.stem}-edges.csv")
