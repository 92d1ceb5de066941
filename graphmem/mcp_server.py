"""graphmem as an MCP server: the ``GraphMemory`` API as MCP tools (official ``mcp`` SDK).

:func:`build_server` turns one open ``GraphMemory`` into an ``MCPServer`` whose tools have the
names and arguments of the Python API; ``graphmem mcp`` serves it over stdio and
:func:`streamable_http_app` over streamable HTTP. Every result is a pydantic model, so clients
get an input schema and structured output for each tool.

A bad call never reaches the client as a traceback: arguments that fail the schema and every
``GraphMemError`` come back as a tool error result (``isError``) with a one-line message, and
anything unexpected as the SDK's generic tool error (the traceback goes to the server's log).
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Annotated, Any

import pydantic
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema
from rich.console import Console
from starlette.applications import Starlette

from .cli_graph import recall_tree
from .errors import GraphMemError
from .memory import GraphMemory
from .models import Kind, Link, LinkType, Memory, PathStep, RecallHit, Scope, Source, Stats

SERVER_NAME = "graphmem"
INSTRUCTIONS = (
    "graphmem is a long-term memory. Call `recall` with the current context before answering "
    "(each hit says why it was found), `remember` for facts, preferences, procedures and "
    "corrections worth keeping (never secrets), and `forget` for what is no longer true. "
    "`search` is plain similarity search."
)
CYPHER_INSTRUCTIONS = " `cypher` runs one read-only Cypher query on the graph."

# ---------------------------------------------------------------------- results


class MemoryOut(Memory):
    """A stored memory (without its embedding, which is of no use to a client)."""

    embedding: SkipJsonSchema[None] = Field(default=None, exclude=True)


class RecallHitOut(BaseModel):
    """A recalled memory, its score and the path by which recall reached it."""

    memory: MemoryOut
    score: float
    why: str = Field(description="The path as one line (RecallHit.explain()).")
    path: list[PathStep] = Field(description="Seed first, then each edge followed.")
    flags: list[str] = Field(default_factory=list)
    contradicts: list[str] = Field(default_factory=list)


class RecallOut(BaseModel):
    """A cascade recall; ``recall_id`` identifies it for feedback."""

    recall_id: str
    hits: list[RecallHitOut]


class ExplainOut(RecallOut):
    """A recall with its tree of paths as text (what ``graphmem explain`` prints)."""

    context: str
    tree: str


class SearchHitOut(BaseModel):
    memory: MemoryOut
    score: float = Field(description="Cosine similarity to the query.")


class SearchOut(BaseModel):
    hits: list[SearchHitOut]


class RememberOut(BaseModel):
    """What remember did: ``created``, ``reinforced`` (``id`` is then the existing memory),
    ``superseded`` (older memories replaced) or ``contradicted`` (conflicts kept side by side)."""

    id: str
    action: str
    memory: MemoryOut
    superseded: list[str] = Field(default_factory=list)
    contradicts: list[str] = Field(default_factory=list)
    related: list[str] = Field(default_factory=list)
    reason: str | None = None


class ForgetOut(BaseModel):
    id: str
    purged: bool = Field(description="True: deleted for good; False: deactivated (restorable).")


class CypherOut(BaseModel):
    rows: list[dict[str, Any]]
    count: int


def _memory(m: Memory) -> MemoryOut:
    return MemoryOut.model_validate(m.model_dump(exclude={"embedding"}))


def _hit(h: RecallHit) -> RecallHitOut:
    return RecallHitOut(
        memory=_memory(h.memory),
        score=h.score,
        why=h.explain(),
        path=h.path,
        flags=h.flags,
        contradicts=h.contradicts,
    )


def _json_safe(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # Kùzu hands back dates, intervals, UUIDs and node dicts; text is what a client can use.
    return json.loads(json.dumps(rows, default=str))


def _render(tree: Any) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=120, color_system=None, force_terminal=False)
    console.print(tree)
    return buffer.getvalue().rstrip()


# ---------------------------------------------------------------------- errors


def _one_line(text: str) -> str:
    return " | ".join(line.strip() for line in str(text).splitlines() if line.strip())


def _arguments_message(exc: pydantic.ValidationError) -> str:
    parts = []
    for e in exc.errors(include_url=False):
        where = ".".join(str(p) for p in e["loc"]) or "arguments"
        parts.append(f"{where}: {e['msg']}")
    return "; ".join(parts)


class _Tool(Tool):
    """A tool whose failures read as one line: bad arguments and ``GraphMemError`` become a
    ``ToolError`` (an ``isError`` result with that line) instead of the SDK's multi-line
    pydantic report or its generic message for an unexpected exception."""

    async def run(
        self, arguments: dict[str, Any], context: Any, convert_result: bool = False
    ) -> Any:
        # The SDK drops arguments it does not know; a misspelt one ("tag" for "tags") would
        # then be lost without a word.
        known = list(self.parameters.get("properties", {}))
        unknown = sorted(set(arguments) - set(known))
        if unknown:
            raise ToolError(
                f"Invalid arguments for {self.name}: unknown argument(s) {', '.join(unknown)}; "
                f"expected {', '.join(known) or 'none'}"
            )
        try:
            return await super().run(arguments, context, convert_result)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, GraphMemError):
                raise ToolError(f"{type(cause).__name__}: {_one_line(str(cause))}") from None
            if isinstance(cause, pydantic.ValidationError) and not isinstance(
                exc, UnexpectedToolError
            ):
                raise ToolError(
                    f"Invalid arguments for {self.name}: {_arguments_message(cause)}"
                ) from None
            raise


# ---------------------------------------------------------------------- tools

Id = Annotated[str, Field(min_length=1, description="A memory id.")]
Limit = Annotated[int, Field(ge=1, le=1000, description="How many results to return.")]
Kinds = Annotated[list[Kind] | None, Field(description="Only memories of these kinds.")]
Tags = Annotated[list[str] | None, Field(description="Only memories with one of these tags.")]
Project = Annotated[str | None, Field(description="Only memories of this project.")]
Session = Annotated[
    str | None, Field(description="The current session (its memories rank higher).")
]
Depth = Annotated[
    int | None, Field(ge=0, le=10, description="Edges a walk may follow from a seed (default 2).")
]

_READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
# Recall writes access counts and learns links in the background: not read-only, never destructive.
_RECALL = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
_WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
_TAG = ToolAnnotations(idempotent_hint=True, destructive_hint=False, open_world_hint=False)
_FORGET = ToolAnnotations(destructive_hint=True, open_world_hint=False)


def _tools(mem: GraphMemory, *, allow_cypher: bool) -> list[tuple[Any, ToolAnnotations, str]]:
    """The tool functions, each with its annotations and a title."""

    def remember(
        content: Annotated[str, Field(description="The text to remember (no secrets).")],
        kind: Kind = "fact",
        tags: list[str] | None = None,
        scope: Scope | None = None,
        project: str | None = None,
        session_id: str | None = None,
        source: Source = "user_stated",
        confidence: Annotated[float, Field(ge=0.0, le=1.0)] = 1.0,
        pinned: bool = False,
        triggers: Annotated[
            list[str] | None,
            Field(description="Phrases that always surface this memory (for negative kinds)."),
        ] = None,
        metadata: dict[str, Any] | None = None,
        supersedes: Annotated[
            list[str] | None, Field(description="Ids of memories this one replaces.")
        ] = None,
    ) -> RememberOut:
        """Store a memory, or reinforce the one it duplicates. A correction of an older memory
        supersedes it; a conflict that cannot be settled is recorded as a contradiction."""
        given = {
            "tags": tags,
            "scope": scope,
            "project": project,
            "session_id": session_id,
            "triggers": triggers,
            "metadata": metadata,
            "supersedes": supersedes,
        }
        fields = {k: v for k, v in given.items() if v is not None}
        r = mem.remember(
            content, kind=kind, source=source, confidence=confidence, pinned=pinned, **fields
        )
        return RememberOut(
            id=r.id,
            action=r.action,
            memory=_memory(r.memory),
            superseded=r.superseded,
            contradicts=r.contradicts,
            related=r.related,
            reason=r.reason,
        )

    def _recall(
        context: str,
        limit: int,
        depth: int | None,
        kinds: Sequence[str] | None,
        tags: Sequence[str] | None,
        project: str | None,
        session_id: str | None,
        learn: bool = True,
    ) -> Any:
        return mem.recall(
            context,
            limit=limit,
            depth=depth,
            kinds=kinds,
            tags=tags,
            project=project,
            session_id=session_id,
            learn=learn,
        )

    def recall(
        context: Annotated[str, Field(description="The current question, message or task.")],
        limit: Limit = 10,
        depth: Depth = None,
        kinds: Kinds = None,
        tags: Tags = None,
        project: Project = None,
        session_id: Session = None,
    ) -> RecallOut:
        """Cascade recall: the memories most relevant to the context, found by similarity and
        then by walking the graph; each hit says why (its path from a seed)."""
        hits = _recall(context, limit, depth, kinds, tags, project, session_id)
        return RecallOut(recall_id=hits.recall_id, hits=[_hit(h) for h in hits])

    def explain(
        context: Annotated[str, Field(description="The current question, message or task.")],
        limit: Limit = 10,
        depth: Depth = None,
        kinds: Kinds = None,
        tags: Tags = None,
        project: Project = None,
        session_id: Session = None,
    ) -> Annotated[CallToolResult, ExplainOut]:
        """Recall for the context shown as a tree of paths (seed → edge → memory) with scores,
        as `graphmem explain` prints it."""
        # Inspection reads only: explaining a recall must not change what it explains.
        hits = _recall(context, limit, depth, kinds, tags, project, session_id, learn=False)
        tree = _render(recall_tree(context, hits))
        out = ExplainOut(
            context=context, recall_id=hits.recall_id, tree=tree, hits=[_hit(h) for h in hits]
        )
        return CallToolResult(
            content=[TextContent(type="text", text=tree)],
            structured_content=out.model_dump(mode="json"),
        )

    def search(
        query: Annotated[str, Field(description="Text to compare memories with.")],
        limit: Limit = 10,
        kinds: Kinds = None,
        tags: Tags = None,
    ) -> SearchOut:
        """Plain vector similarity search (cosine), best first; filters apply before ranking."""
        hits = mem.search(query, limit=limit, kinds=kinds, tags=tags)
        return SearchOut(hits=[SearchHitOut(memory=_memory(h.memory), score=h.score) for h in hits])

    def get(id: Id) -> MemoryOut:
        """The memory with this id."""
        return _memory(mem.get(id))

    def forget(
        id: Id,
        purge: Annotated[
            bool, Field(description="Delete for good instead of deactivating (restorable).")
        ] = False,
    ) -> ForgetOut:
        """Forget a memory: deactivate it (kept, restorable), or with purge delete it for good."""
        mem.forget(id, purge=purge)
        return ForgetOut(id=id, purged=purge)

    def link(
        source: Id,
        target: Id,
        type: LinkType = "relates_to",
        weight: Annotated[
            float | None, Field(ge=0.0, le=1.0, description="relates_to only (default 0.5).")
        ] = None,
        reason: str | None = None,
    ) -> Link:
        """Add a typed edge from source to target; supersedes also deactivates the target."""
        return mem.link(source, target, type, weight=weight, reason=reason)

    def tag(
        id: Id, tags: Annotated[list[str], Field(min_length=1, description="Tags to add.")]
    ) -> MemoryOut:
        """Add tags to a memory (normalised, so one entity is one tag)."""
        return _memory(mem.tag(id, *tags))

    def stats() -> Stats:
        """Counts of memories, tags, clusters and edges in the store."""
        return mem.stats()

    def cypher(
        query: Annotated[str, Field(description="One read-only Cypher statement.")],
        params: Annotated[
            dict[str, Any] | None, Field(description="Values for the query's $name parameters.")
        ] = None,
    ) -> CypherOut:
        """Run one read-only Cypher statement against the memory graph; rows come back as
        objects. Confined: no writes, transaction control, schema changes or file access."""
        # Read-only and without files=: cypher() refuses writes and file access itself.
        rows = _json_safe(mem.cypher(query, params))
        return CypherOut(rows=rows, count=len(rows))

    tools: list[tuple[Any, ToolAnnotations, str]] = [
        (remember, _WRITE, "Remember"),
        (recall, _RECALL, "Recall (with paths)"),
        (search, _READ, "Similarity search"),
        (get, _READ, "Get a memory"),
        (forget, _FORGET, "Forget a memory"),
        (link, _WRITE, "Link two memories"),
        (tag, _TAG, "Tag a memory"),
        (stats, _READ, "Store statistics"),
        (explain, _READ, "Explain a recall"),
    ]
    if allow_cypher:
        tools.append((cypher, _READ, "Read-only Cypher"))
    return tools


def build_server(mem: GraphMemory, *, allow_cypher: bool = False) -> MCPServer:
    """An MCP server whose tools call ``mem`` (which stays open for the server's lifetime).

    Least privilege: the ``cypher`` tool is offered only with ``allow_cypher`` (CLI:
    ``graphmem mcp --cypher``, ``graphmem serve --mcp-cypher``). Even then it is read-only and
    has no file access: the sandbox runs it (graphmem.sandbox), and ``files=`` is never passed.
    """
    tools = [
        _Tool.from_function(fn, title=title, annotations=annotations)
        for fn, annotations, title in _tools(mem, allow_cypher=allow_cypher)
    ]
    instructions = INSTRUCTIONS + (CYPHER_INSTRUCTIONS if allow_cypher else "")
    # WARNING: the SDK logs every request at INFO, which MCP clients show as stderr noise.
    return MCPServer(SERVER_NAME, instructions=instructions, tools=tools, log_level="WARNING")


def streamable_http_app(
    mem: GraphMemory,
    *,
    path: str = "/mcp",
    host: str = "127.0.0.1",
    allow_cypher: bool = False,
) -> Starlette:
    """The server as a Starlette app speaking streamable HTTP at ``path``.

    The app's lifespan runs the MCP session manager: serve it directly, or when mounting it in
    another app, enter ``app.router.lifespan_context(app)`` from the parent's lifespan.
    ``host`` is where it is served; for 127.0.0.1/localhost the SDK turns on DNS-rebinding
    protection (only local Host and Origin headers are accepted).
    """
    return build_server(mem, allow_cypher=allow_cypher).streamable_http_app(
        streamable_http_path=path, host=host
    )


__all__ = ["build_server", "streamable_http_app"]
