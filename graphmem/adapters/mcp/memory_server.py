"""``graphmem mcp --tools server-memory``: a drop-in for the reference MCP memory server.

The nine tools of ``@modelcontextprotocol/server-memory`` (npm) with its names, titles,
descriptions, input and output schemas (copied from the reference's ``tools/list``),
annotations, result shapes (pretty-printed JSON text plus ``structuredContent``) and error
texts, plus its ``memory://knowledge-graph`` resource, answered by :class:`graphmem.adapters.mcp.kg.
KnowledgeGraph` on a graphmem store. ``search_nodes`` returns what the reference's substring
search returns plus what cascade recall finds for the query.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import mcp_types
import pydantic
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from ...errors import GraphMemError
from ...memory import GraphMemory
from .kg import KnowledgeGraph
from .memory_file import MemoryFile

log = logging.getLogger(__name__)

SERVER_NAME = "memory-server"
RESOURCE_URI = "memory://knowledge-graph"
INSTRUCTIONS = (
    "A knowledge graph memory (graphmem, compatible with @modelcontextprotocol/server-memory): "
    "entities with observations, and relations between them. search_nodes also finds what is "
    "related to the query, not only what contains it."
)

# ---------------------------------------------------------------------- schemas (the reference's)

_DRAFT = "http://json-schema.org/draft-07/schema#"
_STR_ARRAY = {"type": "array", "items": {"type": "string"}}


def _obj(properties: dict[str, Any], *, closed: bool = False, root: bool = False) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    schema["required"] = list(properties)
    if closed:
        schema["additionalProperties"] = False
    return {"$schema": _DRAFT, **schema} if root else schema


def _entity(closed: bool) -> dict[str, Any]:
    return _obj(
        {
            "name": {"type": "string", "description": "The name of the entity"},
            "entityType": {"type": "string", "description": "The type of the entity"},
            "observations": {
                **_STR_ARRAY,
                "description": "An array of observation contents associated with the entity",
            },
        },
        closed=closed,
    )


def _relation(closed: bool) -> dict[str, Any]:
    return _obj(
        {
            "from": {
                "type": "string",
                "description": "The name of the entity where the relation starts",
            },
            "to": {
                "type": "string",
                "description": "The name of the entity where the relation ends",
            },
            "relationType": {"type": "string", "description": "The type of the relation"},
        },
        closed=closed,
    )


def _array(items: dict[str, Any], description: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "array", "items": items}
    if description:
        out["description"] = description
    return out


_GRAPH_OUT = _obj(
    {"entities": _array(_entity(True)), "relations": _array(_relation(True))},
    closed=True,
    root=True,
)
_STATUS_OUT = _obj(
    {"success": {"type": "boolean"}, "message": {"type": "string"}}, closed=True, root=True
)
INPUT_SCHEMAS: dict[str, dict[str, Any]] = {
    "create_entities": _obj({"entities": _array(_entity(False))}, root=True),
    "create_relations": _obj({"relations": _array(_relation(False))}, root=True),
    "add_observations": _obj(
        {
            "observations": _array(
                _obj(
                    {
                        "entityName": {
                            "type": "string",
                            "description": "The name of the entity to add the observations to",
                        },
                        "contents": {
                            **_STR_ARRAY,
                            "description": "An array of observation contents to add",
                        },
                    }
                )
            )
        },
        root=True,
    ),
    "delete_entities": _obj(
        {"entityNames": {**_STR_ARRAY, "description": "An array of entity names to delete"}},
        root=True,
    ),
    "delete_observations": _obj(
        {
            "deletions": _array(
                _obj(
                    {
                        "entityName": {
                            "type": "string",
                            "description": "The name of the entity containing the observations",
                        },
                        "observations": {
                            **_STR_ARRAY,
                            "description": "An array of observations to delete",
                        },
                    }
                )
            )
        },
        root=True,
    ),
    "delete_relations": _obj(
        {"relations": _array(_relation(False), "An array of relations to delete")}, root=True
    ),
    "read_graph": {"$schema": _DRAFT, "type": "object", "properties": {}},
    "search_nodes": _obj(
        {
            "query": {
                "type": "string",
                "description": "The search query to match against entity names, types, and "
                "observation content",
            }
        },
        root=True,
    ),
    "open_nodes": _obj(
        {"names": {**_STR_ARRAY, "description": "An array of entity names to retrieve"}},
        root=True,
    ),
}
OUTPUT_SCHEMAS: dict[str, dict[str, Any]] = {
    "create_entities": _obj({"entities": _array(_entity(True))}, closed=True, root=True),
    "create_relations": _obj({"relations": _array(_relation(True))}, closed=True, root=True),
    "add_observations": _obj(
        {
            "results": _array(
                _obj(
                    {"entityName": {"type": "string"}, "addedObservations": _STR_ARRAY},
                    closed=True,
                )
            )
        },
        closed=True,
        root=True,
    ),
    "delete_entities": _STATUS_OUT,
    "delete_observations": _STATUS_OUT,
    "delete_relations": _STATUS_OUT,
    "read_graph": _GRAPH_OUT,
    "search_nodes": _GRAPH_OUT,
    "open_nodes": _GRAPH_OUT,
}

# ---------------------------------------------------------------------- argument models


class _In(BaseModel):
    # Unknown keys are dropped, as the reference's zod objects drop them.
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class EntityIn(_In):
    name: str
    entityType: str
    observations: list[str]


class RelationIn(_In):
    from_: str = Field(alias="from")
    to: str
    relationType: str

    def plain(self) -> dict[str, str]:
        return {"from": self.from_, "to": self.to, "relationType": self.relationType}


class ObservationsIn(_In):
    entityName: str
    contents: list[str]


class DeletionIn(_In):
    entityName: str
    observations: list[str]


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


# ---------------------------------------------------------------------- tools


class _Subscribers:
    """Who asked to hear of changes to the graph resource, and telling them.

    Two eras of the protocol: before 2026-07-28 a client sends ``resources/subscribe`` (as the
    reference's clients do) and the server sends ``notifications/resources/updated`` on that
    session; from 2026-07-28 it opens a ``subscriptions/listen`` stream, which MCPServer
    serves and fills from its subscription bus. Like the reference, every successful call of
    a tool that writes tells both, whether or not it changed anything.
    """

    def __init__(self) -> None:
        # Per connection: the session of its subscribe request (a notification sent through it
        # without a related request goes on the connection's own channel) and its URIs.
        self._subscribed: dict[int, tuple[Any, set[str]]] = {}

    @staticmethod
    def _key(session: Any) -> int:
        # The SDK builds a ServerSession per request; the connection under it is what lasts.
        return id(getattr(session, "_connection", session))

    async def subscribe(
        self, ctx: ServerRequestContext[Any], params: mcp_types.SubscribeRequestParams
    ) -> mcp_types.EmptyResult:
        key = self._key(ctx.session)
        uris = self._subscribed.get(key, (None, set()))[1]
        self._subscribed[key] = (ctx.session, uris | {str(params.uri)})
        return mcp_types.EmptyResult()

    async def unsubscribe(
        self, ctx: ServerRequestContext[Any], params: mcp_types.UnsubscribeRequestParams
    ) -> mcp_types.EmptyResult:
        key = self._key(ctx.session)
        if key in self._subscribed:
            _, uris = self._subscribed[key]
            uris.discard(str(params.uri))
            if not uris:
                del self._subscribed[key]
        return mcp_types.EmptyResult()

    async def updated(self, context: Any) -> None:
        for key, (session, uris) in list(self._subscribed.items()):
            if RESOURCE_URI not in uris:
                continue
            try:
                await session.send_resource_updated(RESOURCE_URI)
            except Exception:  # a connection that went away must not fail the call that wrote
                log.debug("could not notify a subscriber; dropping it", exc_info=True)
                self._subscribed.pop(key, None)
        with contextlib.suppress(ValueError):  # no request context: no listen streams either
            await context.notify_resource_updated(RESOURCE_URI)


class _CompatTool(Tool):
    """A tool that publishes the reference's schemas and reports failures as it does: a
    graphmem error as its one-line message, bad arguments as an input validation error."""

    reference_output: dict[str, Any] | None = None
    # Set for the tools that write: told after each successful call.
    subscribers: Any = None

    @property
    def output_schema(self) -> dict[str, Any] | None:
        return self.reference_output

    async def run(
        self, arguments: dict[str, Any], context: Any, convert_result: bool = False
    ) -> Any:
        result = await self._run(arguments, context, convert_result)
        if self.subscribers is not None:
            await self.subscribers.updated(context)
        return result

    async def _run(self, arguments: dict[str, Any], context: Any, convert_result: bool) -> Any:
        try:
            return await super().run(arguments, context, convert_result)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, GraphMemError):
                raise ToolError(" | ".join(str(cause).splitlines())) from None
            if isinstance(cause, pydantic.ValidationError) and not isinstance(
                exc, UnexpectedToolError
            ):
                problems = "; ".join(
                    f"{e['msg']} at {'.'.join(str(p) for p in e['loc'])}"
                    for e in cause.errors(include_url=False)
                )
                raise ToolError(
                    f"Input validation error: Invalid arguments for tool {self.name}: {problems}"
                ) from None
            raise


def _result(structured: dict[str, Any], text: Any = None) -> CallToolResult:
    shown = (
        text
        if isinstance(text, str)
        else json.dumps(structured if text is None else text, indent=2, ensure_ascii=False)
    )
    return CallToolResult(
        content=[TextContent(type="text", text=shown)], structured_content=structured
    )


def _status(message: str) -> CallToolResult:
    return _result({"success": True, "message": message}, message)


_WRITE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
_DELETE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
)
_READ = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
Out = Annotated[CallToolResult, _Out]


def _tools(
    kg: KnowledgeGraph, step: Callable[[bool], contextlib.AbstractContextManager[None]]
) -> list[tuple[Any, str, str, ToolAnnotations]]:
    # ``step(writes)`` wraps each call: with MEMORY_FILE_PATH, the file is read first if it
    # changed and written back after a call that writes.
    def create_entities(entities: list[EntityIn]) -> Out:
        with step(True):
            created = kg.create_entities([e.model_dump() for e in entities])
        return _result({"entities": created}, created)

    def create_relations(relations: list[RelationIn]) -> Out:
        with step(True):
            created = kg.create_relations([r.plain() for r in relations])
        return _result({"relations": created}, created)

    def add_observations(observations: list[ObservationsIn]) -> Out:
        with step(True):
            results = kg.add_observations([o.model_dump() for o in observations])
        return _result({"results": results}, results)

    def delete_entities(entityNames: list[str]) -> Out:
        with step(True):
            kg.delete_entities(entityNames)
        return _status("Entities deleted successfully")

    def delete_observations(deletions: list[DeletionIn]) -> Out:
        with step(True):
            kg.delete_observations([d.model_dump() for d in deletions])
        return _status("Observations deleted successfully")

    def delete_relations(relations: list[RelationIn]) -> Out:
        with step(True):
            kg.delete_relations([r.plain() for r in relations])
        return _status("Relations deleted successfully")

    def read_graph() -> Out:
        with step(False):
            return _result(kg.read_graph())

    def search_nodes(query: str) -> Out:
        with step(False):
            return _result(kg.search_nodes(query))

    def open_nodes(names: list[str]) -> Out:
        with step(False):
            return _result(kg.open_nodes(names))

    return [
        (create_entities, "Create Entities",
         "Create multiple new entities in the knowledge graph", _WRITE),
        (create_relations, "Create Relations",
         "Create multiple new relations between entities in the knowledge graph. Relations "
         "should be in active voice", _WRITE),
        (add_observations, "Add Observations",
         "Add new observations to existing entities in the knowledge graph", _WRITE),
        (delete_entities, "Delete Entities",
         "Delete multiple entities and their associated relations from the knowledge graph",
         _DELETE),
        (delete_observations, "Delete Observations",
         "Delete specific observations from entities in the knowledge graph", _DELETE),
        (delete_relations, "Delete Relations",
         "Delete multiple relations from the knowledge graph", _DELETE),
        (read_graph, "Read Graph", "Read the entire knowledge graph", _READ),
        (search_nodes, "Search Nodes",
         "Search for nodes in the knowledge graph based on a query", _READ),
        (open_nodes, "Open Nodes",
         "Open specific nodes in the knowledge graph by their names", _READ),
    ]  # fmt: skip


@contextlib.contextmanager
def _no_file(writes: bool) -> Iterator[None]:
    yield


def build_memory_server(mem: GraphMemory, memory_file: MemoryFile | None = None) -> MCPServer:
    """An MCP server with the reference memory server's tools, on ``mem``.

    ``memory_file``: the reference's ``memory.jsonl`` to keep in step (``MEMORY_FILE_PATH``;
    see ``graphmem.adapters.mcp.memory_file``); the caller has opened it.
    """
    kg = memory_file.kg if memory_file is not None else KnowledgeGraph(mem)
    step = memory_file.step if memory_file is not None else _no_file
    subscribers = _Subscribers()
    tools: list[Tool] = []
    for fn, title, description, hints in _tools(kg, step):
        tool = _CompatTool.from_function(
            fn, title=title, description=description, annotations=hints
        )
        assert isinstance(tool, _CompatTool)
        tool.parameters = INPUT_SCHEMAS[tool.name]
        tool.reference_output = OUTPUT_SCHEMAS[tool.name]
        if not hints.read_only_hint:
            tool.subscribers = subscribers
        tools.append(tool)
    from ... import __version__

    server = MCPServer(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        tools=tools,
        log_level="WARNING",
    )
    # The reference's clients subscribe with ``resources/subscribe`` (protocol versions before
    # 2026-07-28). MCPServer serves only the newer ``subscriptions/listen`` itself and has no
    # public hook for the older method, so it goes on the low-level server it wraps; MCPServer
    # then advertises ``resources.subscribe`` to clients of that era.
    lowlevel = server._lowlevel_server
    lowlevel.add_request_handler(
        "resources/subscribe", mcp_types.SubscribeRequestParams, subscribers.subscribe
    )
    lowlevel.add_request_handler(
        "resources/unsubscribe", mcp_types.UnsubscribeRequestParams, subscribers.unsubscribe
    )

    @server.resource(
        RESOURCE_URI,
        name="knowledge-graph",
        title="Knowledge Graph",
        description="The full knowledge graph with all entities and relations",
        mime_type="application/json",
    )
    def knowledge_graph() -> str:
        with step(False):
            return json.dumps(kg.read_graph(), indent=2, ensure_ascii=False)

    return server


__all__ = ["INPUT_SCHEMAS", "OUTPUT_SCHEMAS", "build_memory_server"]
