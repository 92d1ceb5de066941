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

import inspect
import io
import json
from collections.abc import Sequence
from typing import Annotated, Any, Literal

import pydantic
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field
from rich.console import Console
from starlette.applications import Starlette

from ...errors import GraphMemError
from ...export.explain import recall_tree
from ...memory import GraphMemory
from ...models import Kind, Link, LinkType, Scope, Source, Stats
from .answers import (
    ExplainOut,
    HitsOut,
    MemoryBrief,
    MemoryOut,
    RecallOut,
    brief,
    dump,
    fit,
    listing,
    memory_out,
    recall_hit,
    search_hit,
    text_of,
)

SERVER_NAME = "graphmem"
INSTRUCTIONS = (
    "graphmem is a long-term memory. Call `recall` with the current context before answering "
    "(each hit says why it was found), `remember` for facts, preferences, procedures and "
    "corrections worth keeping (never secrets), `update` to correct a memory in place, and "
    "`forget` for what is no longer true (`restore` undoes it). `feedback` with recall's "
    "`recall_id` tells recall which hits helped. `memories` lists, `history` shows how a fact "
    "changed, `search` is plain similarity search."
)
CYPHER_INSTRUCTIONS = " `cypher` runs one read-only Cypher query on the graph."

# ---------------------------------------------------------------------- results


class RememberOut(BaseModel):
    """What remember did: ``created``, ``reinforced`` (``id`` is then the existing memory),
    ``superseded`` (older memories replaced) or ``contradicted`` (conflicts kept side by side)."""

    id: str
    action: str
    tags: list[str] = Field(description="The memory's tags, inferred ones included.")
    superseded: list[str] | None = Field(default=None, description="Ids it replaced.")
    contradicts: list[str] | None = Field(default=None, description="Ids it disagrees with.")
    related: list[str] | None = Field(default=None, description="Ids it was linked to.")
    reason: str | None = None
    memory: MemoryOut | None = Field(default=None, description="detail=true: every field.")


class ForgetOut(BaseModel):
    id: str
    purged: bool = Field(description="True: deleted for good; False: deactivated (restorable).")


class MemoriesOut(BaseModel):
    """A page of memories; ``next_offset`` is the offset of the next page, if there is one."""

    memories: list[MemoryBrief]
    next_offset: int | None = None


class HistoryOut(BaseModel):
    """The supersede chain through a memory, oldest first; the last active one is current."""

    memories: list[MemoryBrief]


class FeedbackOut(BaseModel):
    recall_id: str
    used: int = Field(description="Memories marked as used (linked, confidence raised).")
    rejected: int = Field(description="Memories marked as rejected (confidence lowered).")


class CypherOut(BaseModel):
    rows: list[dict[str, Any]]
    count: int


def _json_safe(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # Kùzu hands back dates, intervals, UUIDs and node dicts; text is what a client can use.
    return json.loads(json.dumps(rows, default=str))


class _AsciiBuffer(io.StringIO):
    # rich draws a tree's guides in ASCII for a non-UTF-8 file: one byte each instead of three,
    # which a model pays for in tokens.
    encoding = "ascii"


def _render(tree: Any) -> str:
    buffer = _AsciiBuffer()
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

Id = Annotated[
    str, Field(min_length=1, description="A memory id, as recall, search or remember return it.")
]
Limit = Annotated[int, Field(ge=1, le=1000, description="How many hits to return at most.")]
Kinds = Annotated[
    list[Kind] | None,
    Field(description="Only memories of these kinds (fact, preference, procedure, correction, "
          "negative, episode)."),
]  # fmt: skip
Tags = Annotated[list[str] | None, Field(description="Only memories with one of these tags.")]
Project = Annotated[str | None, Field(description="Only memories of this project.")]
Session = Annotated[
    str | None,
    Field(description="The current conversation or run; its memories rank higher."),
]
Depth = Annotated[
    int | None,
    Field(ge=0, le=10, description="Edges the graph walk may follow from a direct match "
          "(default 2; 0: direct matches only)."),
]  # fmt: skip
Detail = Annotated[
    bool,
    Field(description="Also return every field of each memory (timestamps, counts, metadata) "
          "and, for recall, the path step by step. Off: id, text, score and a one-line reason, "
          "which is what an answer needs."),
]  # fmt: skip
Budget = Annotated[
    int | None,
    Field(ge=1, description="Keep the whole answer within about this many tokens (4 characters "
          "each), leaving out the lowest-ranked hits; omitted says how many."),
]  # fmt: skip
Context = Annotated[
    str,
    Field(min_length=1, description="The current question, message or task, in words."),
]
KindArg = Annotated[
    Kind,
    Field(description="fact; preference (how someone likes things done); procedure (how to do "
          "something); correction (fixes an earlier belief); negative (something to avoid: give "
          "triggers); episode (an event, never merged with another)."),
]  # fmt: skip
Triggers = Annotated[
    list[str] | None,
    Field(description="Phrases that always surface this memory when a context mentions them "
          "(for negative memories: what to warn about)."),
]  # fmt: skip
Metadata = Annotated[
    dict[str, Any] | None,
    Field(description="Any JSON object to keep with the memory (no secrets)."),
]
FilePaths = Annotated[list[str] | None, Field(description="Files the memory is about.")]
Confidence = Annotated[
    float, Field(ge=0.0, le=1.0, description="How sure this is, 0 to 1; lower ranks lower.")
]
Pinned = Annotated[
    bool,
    Field(description="Keep it always: never made dormant, first to fit a token budget."),
]
Conflicts = Annotated[
    Literal["detect", "flag", "off"],
    Field(description="What to do with an active memory the new text disagrees with: detect "
          "(supersede it when surely replaced, else mark the contradiction), flag (only mark "
          "it), off (no check)."),
]  # fmt: skip

_READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
# Recall writes access counts and learns links in the background: not read-only, never destructive.
_RECALL = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
_WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
_TAG = ToolAnnotations(idempotent_hint=True, destructive_hint=False, open_world_hint=False)
_FORGET = ToolAnnotations(destructive_hint=True, open_world_hint=False)


def _answer(out: BaseModel, text: str | None = None) -> CallToolResult:
    """A result whose text is compact JSON (or ``text``) and whose structured content is the
    same data without empty fields: the SDK's own conversion indents JSON, which costs tokens."""
    data = dump(out)
    return CallToolResult(
        content=[TextContent(type="text", text=text_of(data) if text is None else text)],
        structured_content=data,
    )


def _tools(mem: GraphMemory, *, allow_cypher: bool) -> list[tuple[Any, ToolAnnotations, str]]:
    """The tool functions, each with its annotations and a title."""

    def remember(
        content: Annotated[
            str,
            Field(
                min_length=1,
                description="The text to remember, complete in itself (it is "
                "read later without this conversation). Never a secret.",
            ),
        ],
        kind: KindArg = "fact",
        tags: Annotated[
            list[str] | None,
            Field(description="Labels to file it under; names in the text are tagged anyway."),
        ] = None,
        scope: Annotated[
            Scope | None,
            Field(description="Where it applies: global (default), project or session."),
        ] = None,
        project: Annotated[
            str | None, Field(description="The project it belongs to (a filter later).")
        ] = None,
        session_id: Annotated[
            str | None,
            Field(
                description="The conversation or run it comes from; links it to the "
                "previous memory of that session."
            ),
        ] = None,
        source: Annotated[
            Source,
            Field(
                description="Who says so: user_stated, user_corrected (a user's correction "
                "wins conflicts), observed, extracted or inferred (trusted least)."
            ),
        ] = "user_stated",
        confidence: Confidence = 1.0,
        pinned: Pinned = False,
        triggers: Triggers = None,
        metadata: Metadata = None,
        file_paths: FilePaths = None,
        valid_until: Annotated[
            str | None,
            Field(description="When it stops being true (ISO 8601); recall ignores it after."),
        ] = None,
        supersedes: Annotated[
            list[str] | None, Field(description="Ids of memories this one replaces.")
        ] = None,
        detail: Annotated[bool, Field(description="Also return every field of the memory.")] = (
            False
        ),
    ) -> Annotated[CallToolResult, RememberOut]:
        """Store a memory, or reinforce the one it duplicates. A correction of an older memory
        supersedes it; a conflict that cannot be settled is recorded as a contradiction."""
        given = {
            "tags": tags,
            "scope": scope,
            "project": project,
            "session_id": session_id,
            "triggers": triggers,
            "metadata": metadata,
            "file_paths": file_paths,
            "valid_until": valid_until,
            "supersedes": supersedes,
        }
        fields = {k: v for k, v in given.items() if v is not None}
        r = mem.remember(
            content, kind=kind, source=source, confidence=confidence, pinned=pinned, **fields
        )
        return _answer(
            RememberOut(
                id=r.id,
                action=r.action,
                tags=r.memory.tags,
                superseded=r.superseded or None,
                contradicts=r.contradicts or None,
                related=r.related or None,
                reason=r.reason,
                memory=memory_out(r.memory) if detail else None,
            )
        )

    def _recall(
        context: str,
        limit: int,
        depth: int | None,
        kinds: Sequence[str] | None,
        tags: Sequence[str] | None,
        project: str | None,
        session_id: str | None,
        budget_tokens: int | None,
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
            budget_tokens=budget_tokens,
            learn=learn,
        )

    def recall(
        context: Context,
        limit: Limit = 10,
        depth: Depth = None,
        kinds: Kinds = None,
        tags: Tags = None,
        project: Project = None,
        session_id: Session = None,
        budget_tokens: Budget = None,
        detail: Detail = False,
    ) -> Annotated[CallToolResult, RecallOut]:
        """The memories most relevant to the context, best first: found by meaning and words,
        then by following the graph (shared names, links, corrections). Each hit has its id,
        text, score and why it was found. Call it before answering; send the recall_id back
        with feedback to say which hits helped."""
        hits = _recall(context, limit, depth, kinds, tags, project, session_id, budget_tokens)
        out = RecallOut(recall_id=hits.recall_id, hits=[recall_hit(h, detail=detail) for h in hits])
        return _answer(fit(out, budget_tokens))

    def explain(
        context: Context,
        limit: Limit = 10,
        depth: Depth = None,
        kinds: Kinds = None,
        tags: Tags = None,
        project: Project = None,
        session_id: Session = None,
        budget_tokens: Budget = None,
        detail: Detail = False,
    ) -> Annotated[CallToolResult, ExplainOut]:
        """Recall for the context shown as a tree of paths (seed, edge, memory) with scores,
        as `graphmem explain` prints it: for seeing why recall found what it found."""
        # Inspection reads only: explaining a recall must not change what it explains.
        hits = _recall(
            context, limit, depth, kinds, tags, project, session_id, budget_tokens, learn=False
        )
        tree = _render(recall_tree(context, hits))
        out = ExplainOut(
            context=context,
            recall_id=hits.recall_id,
            tree=tree,
            hits=[recall_hit(h, detail=detail) for h in hits],
        )
        out = fit(out, budget_tokens)
        if out.omitted:
            kept = {h.id for h in out.hits}
            tree = _render(recall_tree(context, [h for h in hits if h.memory.id in kept]))
            out = out.model_copy(update={"tree": tree})
        return _answer(out, text=tree)

    def search(
        query: Annotated[str, Field(min_length=1, description="Text to compare memories with.")],
        limit: Limit = 10,
        kinds: Kinds = None,
        tags: Tags = None,
        project: Project = None,
        budget_tokens: Budget = None,
        detail: Detail = False,
    ) -> Annotated[CallToolResult, HitsOut]:
        """Plain similarity search (cosine of the embeddings), best first; filters apply
        before ranking. recall is usually the better call: it also follows the graph."""
        hits = mem.search(query, limit=limit, kinds=kinds, tags=tags, project=project)
        out = HitsOut(hits=[search_hit(h, detail=detail) for h in hits])
        return _answer(fit(out, budget_tokens))

    def get(id: Id) -> MemoryOut:
        """The memory with this id, with every field."""
        return memory_out(mem.get(id))

    def memories(
        tag: Annotated[str | None, Field(description="Only memories with this tag.")] = None,
        kinds: Kinds = None,
        project: Project = None,
        session_id: Annotated[
            str | None, Field(description="Only memories of this session.")
        ] = None,
        include_inactive: Annotated[
            bool, Field(description="Also forgotten and superseded memories.")
        ] = False,
        limit: Annotated[int, Field(ge=1, le=500, description="Memories per page.")] = 20,
        offset: Annotated[
            int, Field(ge=0, description="Memories to skip: the next_offset of the last page.")
        ] = 0,
        detail: Detail = False,
    ) -> Annotated[CallToolResult, MemoriesOut]:
        """List memories, newest first, a page at a time (next_offset asks for the next)."""
        page = mem.memories(
            tag=tag,
            kinds=kinds,
            project=project,
            session_id=session_id,
            include_inactive=include_inactive,
            limit=limit + 1,  # one more, to know whether there is a next page
            offset=offset,
        )
        more = len(page) > limit
        return _answer(
            MemoriesOut(
                memories=listing(page[:limit], detail=detail),
                next_offset=offset + limit if more else None,
            )
        )

    def history(id: Id, detail: Detail = False) -> Annotated[CallToolResult, HistoryOut]:
        """How a fact changed: the chain of memories that superseded one another through
        this one, oldest first, each with when it was stored and what replaced it."""
        return _answer(HistoryOut(memories=listing(mem.history(id), detail=detail)))

    def update(
        id: Id,
        content: Annotated[
            str | None,
            Field(
                min_length=1,
                description="New text (re-embedded, re-tagged and checked for "
                "conflicts like a new memory). Omit to keep it.",
            ),
        ] = None,
        kind: Annotated[Kind | None, Field(description="A new kind. Omit to keep it.")] = None,
        confidence: Annotated[
            float | None, Field(ge=0.0, le=1.0, description="A new confidence, 0 to 1.")
        ] = None,
        pinned: Annotated[bool | None, Field(description="Pin or unpin it.")] = None,
        metadata: Annotated[
            dict[str, Any] | None,
            Field(description="New metadata (replaces the old object; no secrets)."),
        ] = None,
        triggers: Annotated[
            list[str] | None, Field(description="New trigger phrases (replace the old ones).")
        ] = None,
        file_paths: Annotated[
            list[str] | None, Field(description="New file paths (replace the old ones).")
        ] = None,
        valid_from: Annotated[
            str | None, Field(description="From when it is true (ISO 8601).")
        ] = None,
        valid_until: Annotated[
            str | None, Field(description="When it stops being true (ISO 8601).")
        ] = None,
        conflicts: Conflicts = "detect",
    ) -> Annotated[CallToolResult, MemoryBrief]:
        """Correct a memory in place: change its text or fields, keeping its id, tags given
        by hand and links. To record that a fact changed over time, remember the new fact
        instead (it supersedes the old one and history shows both)."""
        fields: dict[str, Any] = {
            "content": content,
            "kind": kind,
            "confidence": confidence,
            "pinned": pinned,
            "metadata": metadata,
            "triggers": triggers,
            "file_paths": file_paths,
            "valid_from": valid_from,
            "valid_until": valid_until,
        }
        given = {k: v for k, v in fields.items() if v is not None}
        return _answer(brief(mem.update(id, conflicts=conflicts, **given)))

    def forget(
        id: Id,
        purge: Annotated[
            bool,
            Field(description="Delete it for good (no restore) instead of deactivating it."),
        ] = False,
    ) -> ForgetOut:
        """Forget a memory that is no longer true: deactivate it (kept, restorable, no longer
        recalled), or with purge delete it for good."""
        mem.forget(id, purge=purge)
        return ForgetOut(id=id, purged=purge)

    def restore(
        id: Id,
        unsupersede: Annotated[
            bool,
            Field(
                description="Also make a superseded memory current again (drops the link "
                "to the memory that replaced it)."
            ),
        ] = False,
    ) -> Annotated[CallToolResult, MemoryBrief]:
        """Undo forget: make a forgotten memory active again. A superseded memory stays
        superseded (superseded_by says by which) unless unsupersede is true."""
        return _answer(brief(mem.restore(id, unsupersede=unsupersede)))

    def feedback(
        recall_id: Annotated[
            str, Field(min_length=1, description="The recall_id that recall returned.")
        ],
        used: Annotated[
            list[str] | None,
            Field(description="Ids of hits that helped: they are linked and gain confidence."),
        ] = None,
        rejected: Annotated[
            list[str] | None,
            Field(
                description="Ids of hits that were wrong or useless: they lose a little confidence."
            ),
        ] = None,
    ) -> FeedbackOut:
        """Teach recall which hits of a recent recall helped and which did not."""
        mem.feedback(recall_id, used=used or [], rejected=rejected or [])
        return FeedbackOut(recall_id=recall_id, used=len(used or []), rejected=len(rejected or []))

    def link(
        source: Annotated[str, Field(min_length=1, description="The id the edge starts at.")],
        target: Annotated[str, Field(min_length=1, description="The id the edge points to.")],
        type: Annotated[
            LinkType,
            Field(
                description="relates_to (related), supersedes (source replaces target, which "
                "is deactivated), contradicts (they disagree), derived_from (source was "
                "worked out from target)."
            ),
        ] = "relates_to",
        weight: Annotated[
            float | None,
            Field(
                ge=0.0,
                le=1.0,
                description="How strongly related, 0 to 1 (relates_to only; default 0.5).",
            ),
        ] = None,
        reason: Annotated[
            str | None, Field(description="Why they are linked, in a few words.")
        ] = None,
    ) -> Link:
        """Add a typed edge from source to target; supersedes also deactivates the target."""
        return mem.link(source, target, type, weight=weight, reason=reason)

    def tag(
        id: Id, tags: Annotated[list[str], Field(min_length=1, description="Tags to add.")]
    ) -> MemoryOut:
        """Add tags to a memory (normalised, so one entity is one tag)."""
        return memory_out(mem.tag(id, *tags))

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
        (recall, _RECALL, "Recall (with reasons)"),
        (search, _READ, "Similarity search"),
        (get, _READ, "Get a memory"),
        (memories, _READ, "List memories"),
        (history, _READ, "History of a fact"),
        (update, _WRITE, "Update a memory"),
        (forget, _FORGET, "Forget a memory"),
        (restore, _WRITE, "Restore a forgotten memory"),
        (feedback, _WRITE, "Feedback on a recall"),
        (link, _WRITE, "Link two memories"),
        (tag, _TAG, "Tag a memory"),
        (stats, _READ, "Store statistics"),
        (explain, _READ, "Explain a recall"),
    ]
    if allow_cypher:
        tools.append((cypher, _READ, "Read-only Cypher"))
    return tools


def _description(fn: Any) -> str:
    """The docstring as clean text: each paragraph on one line (an indented docstring's line
    breaks and leading spaces would reach the client as they are)."""
    paragraphs = inspect.cleandoc(fn.__doc__ or "").split("\n\n")
    return "\n\n".join(" ".join(p.split()) for p in paragraphs if p.strip())


def build_server(mem: GraphMemory, *, allow_cypher: bool = False) -> MCPServer:
    """An MCP server whose tools call ``mem`` (which stays open for the server's lifetime).

    Least privilege: the ``cypher`` tool is offered only with ``allow_cypher`` (CLI:
    ``graphmem mcp --cypher``, ``graphmem serve --mcp-cypher``). Even then it is read-only and
    has no file access: the sandbox runs it (graphmem.storage.sandbox), and ``files=`` is never passed.
    """
    tools = [
        _Tool.from_function(fn, title=title, annotations=annotations, description=_description(fn))
        for fn, annotations, title in _tools(mem, allow_cypher=allow_cypher)
    ]
    instructions = INSTRUCTIONS + (CYPHER_INSTRUCTIONS if allow_cypher else "")
    # WARNING: the SDK logs every request at INFO, which MCP clients show as stderr noise.
    from ... import __version__

    return MCPServer(
        SERVER_NAME,
        version=__version__,
        instructions=instructions,
        tools=tools,
        log_level="WARNING",
    )


def streamable_http_app(
    mem: GraphMemory,
    *,
    path: str = "/mcp",
    host: str = "127.0.0.1",
    allow_cypher: bool = False,
    allowed_hosts: Sequence[str] = (),
) -> Starlette:
    """The server as a Starlette app speaking streamable HTTP at ``path``.

    The app's lifespan runs the MCP session manager: serve it directly, or when mounting it in
    another app, enter ``app.router.lifespan_context(app)`` from the parent's lifespan.
    ``host`` is where it is served; for 127.0.0.1/localhost the SDK turns on DNS-rebinding
    protection (only local Host and Origin headers are accepted), and ``allowed_hosts`` (what
    ``serve --allow-host`` names) are accepted beside them.
    """
    security = None
    if allowed_hosts and host in ("127.0.0.1", "localhost", "::1"):
        names = ["127.0.0.1", "localhost", "[::1]", *allowed_hosts]
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=[f"{n}:*" for n in names] + list(allowed_hosts),
            allowed_origins=[f"http://{n}:*" for n in names],
        )
    return build_server(mem, allow_cypher=allow_cypher).streamable_http_app(
        streamable_http_path=path, host=host, transport_security=security
    )


__all__ = ["build_server", "streamable_http_app"]
