"""What a caller's Cypher statement may do, judged from the plan Kùzu itself makes for it.

``cypher()`` is handed to people debugging a store and to agents over MCP, who send whatever a
prompt put in front of them. An earlier version re-read the statement with a lexer of its own,
and every place where that lexer and Kùzu's parser disagreed (how a comment ends, where a number
stops) was a way past it. Nothing here reads Cypher text: the sandbox worker
(graphmem.storage.sandbox_worker) asks Kùzu for the statement's physical plan (``EXPLAIN``), and
``check`` admits it by the operators and table functions Kùzu says it will run, against
allow-lists. Comments, strings, escapes, unicode separators or nesting cannot hide an operator
from the planner that runs it.

This is the first of three layers: the statement then runs in a worker process on a read-only
copy of the store, shut out of every file but the folder the caller allowed (Landlock), with a
memory limit, so an operator this list misjudges still cannot write the store, read a file or
take the owner down (graphmem.storage.sandbox).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import CypherError, ReadOnlyError

# Physical operators of read-only plans (Kùzu 0.11.3 names, as EXPLAIN prints them).
READ_OPERATORS = frozenset({
    "RESULT_COLLECTOR", "PROJECTION", "FILTER", "FLATTEN", "LIMIT", "SKIP", "UNWIND",
    "SCAN_NODE_TABLE", "SCAN_REL_TABLE", "PRIMARY_KEY_SCAN_NODE_TABLE", "SCAN_NODE_ID",
    "SCAN_MULTI_NODE_TABLES", "SCAN_MULTI_REL_TABLES", "OFFSET_SCAN_NODE_TABLE",
    "COUNT_REL_TABLE", "INDEX_LOOKUP", "INDEX_SCAN", "HASH_JOIN_BUILD", "HASH_JOIN_PROBE",
    "INTERSECT_BUILD", "INTERSECT", "CROSS_PRODUCT", "MULTIPLICITY_REDUCER",
    "PATH_PROPERTY_PROBE", "RECURSIVE_JOIN", "RECURSIVE_EXTEND", "SEMI_MASKER", "SCAN_FRONTIER",
    "AGGREGATE", "AGGREGATE_FINALIZE", "AGGREGATE_SCAN", "TOP_K", "TOP_K_SCAN", "ORDER_BY",
    "ORDER_BY_MERGE", "ORDER_BY_SCAN", "UNION_ALL_SCAN", "EMPTY_RESULT", "TABLE_FUNCTION_CALL",
    "IN_QUERY_CALL", "DUMMY_SINK", "DUMMY_SIMPLE_SINK", "PARTITIONER",
})  # fmt: skip
# Operators that change nodes and edges: only with write=True.
WRITE_OPERATORS = frozenset({
    "INSERT", "MERGE", "SET_PROPERTY", "SET_NODE_PROPERTY", "SET_REL_PROPERTY", "DELETE",
    "DELETE_NODE", "DELETE_REL",
})  # fmt: skip
# Operators that write files: only with files= (and only in the sandbox, never the owner).
FILE_OPERATORS = frozenset({"COPY_TO", "EXPORT_DATABASE"})
# Table functions that read only the graph or its catalogue (READ_FTABLE is Kùzu's own scan of
# an intermediate result).
READ_FUNCTIONS = frozenset({
    "READ_FTABLE", "SHOW_TABLES", "SHOW_FUNCTIONS", "SHOW_CONNECTION", "SHOW_INDEXES",
    "SHOW_SEQUENCES", "SHOW_WARNINGS", "SHOW_PROJECTED_GRAPHS", "SHOW_LOADED_EXTENSIONS",
    "SHOW_ATTACHED_DATABASES", "SHOW_OFFICIAL_EXTENSIONS", "TABLE_INFO", "CURRENT_SETTING",
    "DB_VERSION", "CATALOG_VERSION", "QUERY_FTS_INDEX", "QUERY_VECTOR_INDEX", "STATS_INFO",
    "STORAGE_INFO", "BM_INFO", "FSM_INFO", "PROJECTED_GRAPH_INFO", "PAGE_RANK", "PR", "WCC",
    "WEAKLY_CONNECTED_COMPONENTS", "SCC", "SCC_KO", "STRONGLY_CONNECTED_COMPONENTS",
    "STRONGLY_CONNECTED_COMPONENTS_KOSARAJU", "KCORE", "K_CORE_DECOMPOSITION", "LOUVAIN",
})  # fmt: skip
# Table functions that read files (LOAD FROM, COPY … FROM): only with files=.
FILE_FUNCTIONS = frozenset({
    "READ_CSV_PARALLEL", "READ_CSV_SERIAL", "READ_PARQUET", "READ_NPY", "JSON_SCAN", "FILE_INFO",
})  # fmt: skip

_TITLE = re.compile(r"^([A-Z][A-Z_ ]*[A-Z])\[\d+\]$")
_FUNCTION = re.compile(r"Function: ([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True)
class Plan:
    """The operators and table functions of a statement's physical plan."""

    operators: tuple[str, ...]
    functions: tuple[str, ...]


def read_plan(text: str) -> Plan:
    """The operators and functions in ``EXPLAIN``'s drawing of a physical plan.

    Every operator is a box whose first line is ``NAME[id]``; boxes may stand side by side.
    Anything that looks like a box but has no such title makes the plan unreadable, so an
    operator can never be skipped (the check fails closed).

    Raises:
        CypherError: the drawing holds a box without an operator title, or no operator at all.
    """
    lines = text.splitlines()
    operators: list[str] = []
    for i, line in enumerate(lines[:-1]):
        start = line.find("┌")
        while start >= 0:
            end = line.find("┐", start)
            if end < 0:
                break
            title = lines[i + 1][start + 1 : end].strip()
            if title.startswith("┌") or title == "Physical Plan":
                pass  # the frame around the heading "Physical Plan"
            elif m := _TITLE.match(title):
                operators.append(m.group(1))
            else:
                raise CypherError(f"Could not read Kùzu's plan (a box titled {title!r})", text)
            start = line.find("┌", end)
    if not operators:
        raise CypherError("Kùzu's plan for this statement names no operator", text)
    return Plan(tuple(operators), tuple(f.upper() for f in _FUNCTION.findall(text)))


def check(plan: Plan, query: str, *, write: bool, files: bool) -> None:
    """Refuse a statement whose plan does what ``cypher()`` must not do.

    Args:
        plan: the statement's plan (``read_plan``).
        query: the statement, for the error.
        write: the caller asked to change nodes and edges.
        files: the caller named a folder the statement may read and write files in.

    Raises:
        ReadOnlyError: the plan writes and ``write`` is False.
        CypherError: anything else outside the allow-lists: transaction control, schema,
            extension, database or setting changes, or file access without ``files``.
    """
    ops = set(plan.operators)
    if ops & WRITE_OPERATORS and not write:
        raise ReadOnlyError(
            f"Write refused: the statement changes the graph ({', '.join(sorted(ops & WRITE_OPERATORS))}), "
            "and cypher() is read-only unless write=True (CLI: --write)"
        )
    if ops & FILE_OPERATORS and not files:
        raise CypherError(
            f"The statement writes files ({', '.join(sorted(ops & FILE_OPERATORS))}): cypher() has "
            "no file access unless the caller names a folder (files=..., CLI: --files DIR)",
            query,
        )
    if write and ops & FILE_OPERATORS:
        raise CypherError("A statement that changes the graph cannot also use files", query)
    other = ops - READ_OPERATORS - WRITE_OPERATORS - FILE_OPERATORS
    if other:
        raise CypherError(
            f"cypher() does not run {', '.join(sorted(other))}: transaction control, schema, "
            "extension, database and setting changes are not allowed (graphmem owns the schema)",
            query,
        )
    if "TABLE_FUNCTION_CALL" in ops and not plan.functions:
        raise CypherError("Could not read which table function the statement calls", query)
    for name in plan.functions:
        if name in READ_FUNCTIONS:
            continue
        if name in FILE_FUNCTIONS:
            if not files:
                raise CypherError(
                    f"The statement reads files ({name}): cypher() has no file access unless the "
                    "caller names a folder (files=..., CLI: --files DIR)",
                    query,
                )
            if write:
                raise CypherError(
                    "A statement that changes the graph cannot read files: use "
                    "`graphmem import`, which screens what it stores",
                    query,
                )
            continue
        raise CypherError(
            f"CALL {name} is not allowed in cypher(); allowed: "
            + ", ".join(sorted(READ_FUNCTIONS - {"READ_FTABLE"})).lower(),
            query,
        )
