"""What a caller's free-form Cypher may do: one statement, no transaction control, no schema
or extension changes, no writes unless asked, and no file access outside a directory the caller
names.

``cypher()`` is handed to people debugging a store and to agents over MCP, who send whatever a
prompt put in front of them. Kùzu has no per-connection permission system, so the statement is
checked here before Kùzu sees it, and then run as one prepared statement (Kùzu refuses to
prepare more than one) inside a read-only transaction unless writing was asked for: two layers,
so a statement this lexer misjudges still cannot write.

This is a small hand-written lexer rather than a Cypher parser library because the check needs
Kùzu's dialect (its escapes, comments and statements such as ``COPY``, ``LOAD FROM`` and
``EXPORT DATABASE``), which no Python Cypher parser on PyPI covers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .errors import CypherError, ReadOnlyError

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"[0-9][0-9A-Za-z_.]*")

# Statements that end, start or escape the transaction the call runs in, load code, or open
# other databases: never allowed (``COMMIT; …`` used to slip a write past read-only mode and
# could crash the process).
_FORBIDDEN = {
    "BEGIN": "transaction control",
    "COMMIT": "transaction control",
    "ROLLBACK": "transaction control",
    "CHECKPOINT": "transaction control",
    "INSTALL": "extensions",
    "EXTENSION": "extensions",
    "ATTACH": "attaching databases",
    "USE": "attaching databases",
    "IMPORT": "importing a database",
}
# Schema changes: graphmem owns the schema (its migrations and mirror depend on it).
_DDL_OBJECTS = {"TABLE", "NODE", "REL", "RDF", "MACRO", "SEQUENCE", "TYPE", "GRAPH", "INDEX"}
_WRITES = {"CREATE", "MERGE", "SET", "DELETE", "REMOVE", "DROP", "ALTER"}
_FILE_STATEMENTS = {"LOAD", "COPY", "EXPORT"}
# Table functions a caller may CALL: catalogue and index look-ups. Everything else is refused,
# since Kùzu's other table functions read files (READ_CSV_*, READ_PARQUET, JSON_SCAN, READ_NPY,
# READ_PANDAS reads the caller's Python variables) or change indexes and projected graphs.
_CALLABLE = {
    "SHOW_TABLES", "SHOW_FUNCTIONS", "SHOW_CONNECTION", "SHOW_INDEXES", "SHOW_SEQUENCES",
    "SHOW_WARNINGS", "SHOW_PROJECTED_GRAPHS", "SHOW_LOADED_EXTENSIONS", "SHOW_ATTACHED_DATABASES",
    "SHOW_OFFICIAL_EXTENSIONS", "TABLE_INFO", "CURRENT_SETTING", "DB_VERSION", "CATALOG_VERSION",
    "QUERY_FTS_INDEX", "QUERY_VECTOR_INDEX", "STATS_INFO", "STORAGE_INFO", "BM_INFO", "FSM_INFO",
    "PROJECTED_GRAPH_INFO",
}  # fmt: skip


@dataclass(frozen=True)
class Token:
    kind: str  # "word", "string", "number", "ident" (backticked), "punct"
    text: str  # for strings: the decoded value
    pos: int


def tokens(query: str) -> list[Token]:
    """Kùzu's lexical structure as far as the check needs it: comments dropped, strings decoded.

    Raises:
        CypherError: an unterminated string, identifier or comment.
    """
    out: list[Token] = []
    i, n = 0, len(query)
    while i < n:
        ch = query[i]
        if ch.isspace():
            i += 1
        elif query.startswith("//", i):
            end = query.find("\n", i)
            i = n if end < 0 else end + 1
        elif query.startswith("/*", i):
            end = query.find("*/", i + 2)
            if end < 0:
                raise CypherError("Unterminated comment", query)
            i = end + 2
        elif ch in "'\"":
            j, chars = i + 1, []
            while j < n and query[j] != ch:
                # Kùzu reads a backslash as "the next character, literally".
                if query[j] == "\\" and j + 1 < n:
                    j += 1
                chars.append(query[j])
                j += 1
            if j >= n:
                raise CypherError("Unterminated string literal", query)
            out.append(Token("string", "".join(chars), i))
            i = j + 1
        elif ch == "`":
            end = query.find("`", i + 1)
            if end < 0:
                raise CypherError("Unterminated `identifier`", query)
            out.append(Token("ident", query[i + 1 : end], i))
            i = end + 1
        elif m := _WORD.match(query, i):
            out.append(Token("word", m.group(), i))
            i = m.end()
        elif m := _NUMBER.match(query, i):
            out.append(Token("number", m.group(), i))
            i = m.end()
        else:
            out.append(Token("punct", ch, i))
            i += 1
    return out


def _keywords(toks: list[Token]) -> list[tuple[int, str]]:
    """Positions and upper-cased text of words used as keywords, not as names.

    A word right after ``.`` (a property), ``:`` (a label or map key's type), ``$`` (a
    parameter), or right before ``:`` (a map key) is a name.
    """
    out = []
    for k, tok in enumerate(toks):
        if tok.kind != "word":
            continue
        before = toks[k - 1].text if k and toks[k - 1].kind == "punct" else ""
        after = toks[k + 1].text if k + 1 < len(toks) and toks[k + 1].kind == "punct" else ""
        if before in {".", ":", "$"} or after == ":":
            continue
        out.append((k, tok.text.upper()))
    return out


def _next_word(toks: list[Token], k: int) -> str:
    return toks[k + 1].text.upper() if k + 1 < len(toks) and toks[k + 1].kind == "word" else ""


def _paths_after(toks: list[Token], k: int, query: str) -> list[str]:
    """The string literal (or list of literals) a file keyword at ``k`` names."""
    j = k + 1
    if j < len(toks) and toks[j].kind == "string":
        return [toks[j].text]
    if j < len(toks) and toks[j].text == "[":
        paths = []
        j += 1
        while j < len(toks) and toks[j].text != "]":
            if toks[j].kind == "string":
                paths.append(toks[j].text)
            elif toks[j].text != ",":
                break
            j += 1
        else:
            if paths:
                return paths
    raise CypherError(
        "A file in cypher() must be named by a string literal (not a parameter or a variable)",
        query,
    )


def _check_path(raw: str, files: Path, query: str) -> None:
    if "://" in raw:
        raise CypherError(f"Only local files are allowed in cypher(); got '{raw}'", query)
    # A glob names files in its folder: check the folder.
    cut = min((raw.find(c) for c in "*?[" if c in raw), default=-1)
    target = Path(raw[:cut] if cut >= 0 else raw).expanduser()
    resolved = target.resolve()
    root = files.resolve()
    if resolved != root and root not in resolved.parents:
        raise CypherError(f"'{raw}' is outside the directory this call may use ('{root}')", query)


def check(query: str, *, write: bool, files: Path | None) -> None:
    """Refuse a statement that ``cypher()`` must not run.

    Args:
        query: the caller's Cypher.
        write: the caller asked to change the graph.
        files: the one directory the statement may read or write files in (None: no files).

    Raises:
        CypherError: more than one statement, transaction control, schema or extension
            changes, or file access outside ``files``.
        ReadOnlyError: a write when ``write`` is False.
    """
    toks = tokens(query)
    statements: list[list[Token]] = [[]]
    for t in toks:
        if t.kind == "punct" and t.text == ";":
            statements.append([])
        else:
            statements[-1].append(t)
    statements = [s for s in statements if s]
    if not statements:
        raise CypherError("The query is empty", query)
    if len(statements) > 1:
        raise CypherError("One statement per call: remove the ';' between statements", query)
    toks = statements[0]
    for k, word in _keywords(toks):
        nxt = _next_word(toks, k)
        if word in _FORBIDDEN or (word == "DETACH" and nxt == "DATABASE"):
            what = _FORBIDDEN.get(word, "attaching databases")
            raise CypherError(f"{word} is not allowed in cypher() ({what})", query)
        if word == "LOAD" and nxt == "EXTENSION":
            raise CypherError("LOAD EXTENSION is not allowed in cypher() (extensions)", query)
        if word in {"DROP", "ALTER"} or (word == "CREATE" and nxt in _DDL_OBJECTS):
            raise CypherError(
                f"{' '.join(filter(None, (word, nxt)))} is not allowed in cypher(): "
                "graphmem owns the schema",
                query,
            )
        if word == "CALL":
            name = toks[k + 1].text if k + 1 < len(toks) else ""
            if k + 2 < len(toks) and toks[k + 2].text == "=":
                raise CypherError(
                    f"Changing the setting '{name}' is not allowed in cypher()", query
                )
            if name.upper() not in _CALLABLE:
                raise CypherError(
                    f"CALL {name} is not allowed in cypher(); allowed: "
                    + ", ".join(sorted(_CALLABLE)).lower(),
                    query,
                )
        writes = word in _WRITES
        if word in _FILE_STATEMENTS:
            # COPY <table> FROM loads rows into the graph: a write.
            writes = _check_files(toks, k, word, query, files) == ("COPY", "FROM")
        if writes and not write:
            raise ReadOnlyError(
                f"Write refused: {word} changes the graph, and cypher() is read-only unless "
                "write=True (CLI: --write)"
            )


def _check_files(
    toks: list[Token], k: int, word: str, query: str, files: Path | None
) -> tuple[str, str]:
    """Check the paths a file statement names; returns (statement, FROM/TO/DATABASE)."""
    if files is None:
        raise CypherError(
            f"{word} reads or writes files: cypher() has no file access unless the caller "
            "names a directory (files=..., CLI: --files DIR)",
            query,
        )
    # The path follows FROM (LOAD FROM, COPY t FROM), TO (COPY (…) TO) or EXPORT DATABASE.
    targets = {"LOAD": {"FROM"}, "COPY": {"FROM", "TO"}, "EXPORT": {"DATABASE"}}[word]
    depth = 0
    for j in range(k + 1, len(toks)):
        tok = toks[j]
        if tok.kind == "punct" and tok.text in "({[":
            depth += 1
        elif tok.kind == "punct" and tok.text in ")}]":
            depth -= 1
        elif depth == 0 and tok.kind == "word" and tok.text.upper() in targets:
            for raw in _paths_after(toks, j, query):
                _check_path(raw, files, query)
            return word, tok.text.upper()
    raise CypherError(f"Could not find the file {word} names", query)
