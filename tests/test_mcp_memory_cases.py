"""The reference memory server's own test cases, as MCP calls, against it and graphmem.

modelcontextprotocol/servers tests ``src/memory`` with vitest against its TypeScript classes
(``__tests__/knowledge-graph.test.ts``, ``resource.test.ts``, ``file-path.test.ts``). Each of
those cases is written here as the MCP calls an agent would make (the class methods are the
tools; the resource and subscription cases are ``resources/*`` requests), run in the same
order against the published server (``npx -y @modelcontextprotocol/server-memory``, with
``MEMORY_FILE_PATH``) and against ``graphmem mcp --tools server-memory``. Every answer must be
the same, except that graphmem's ``search_nodes`` may add at most a few entities recall found
after the reference's own matches. The case's own expectation is checked on both.

Two cases of the repository's current tests are not the published server's behaviour and are
held to the published server: ``createRelations`` rejecting a missing endpoint (the published
server stores the relation). The ``memory.json`` migration and the default path next to the
package are the reference's install layout, which graphmem does not share; a relative
``MEMORY_FILE_PATH`` is taken from the working folder (see ``graphmem.adapters.mcp.memory_file``).

Then the switch a user makes: the reference writes a file, graphmem started on the same
``MEMORY_FILE_PATH`` answers from it and writes its changes back, and the reference started
again sees them.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from graphmem.adapters.mcp.kg import RECALL_EXTRA

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
# Pinned: the version whose behaviour these cases were checked against.
PACKAGE = "@modelcontextprotocol/server-memory@2026.8.31"
URI = "memory://knowledge-graph"
DEADLINE = 600

Call = Callable[..., Awaitable[dict[str, Any]]]


# ---------------------------------------------------------------------- the two servers


def _reference(memory_file: Path, home: Path) -> StdioServerParameters:
    npx = shutil.which("npx")
    if npx is None:
        why = "npx is not installed: the reference memory server runs with npx (Node.js)"
        if os.environ.get("GRAPHMEM_REQUIRE_NPX"):
            pytest.fail(why)  # CI installs Node: there the comparison must run
        pytest.skip(why)
    return StdioServerParameters(
        command=npx,
        args=["-y", PACKAGE],
        env={
            "MEMORY_FILE_PATH": str(memory_file),
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(home),  # npx's cache: one per test run
            "npm_config_update_notifier": "false",
        },
    )


def _graphmem(memory_file: Path, model_path: str) -> StdioServerParameters:
    # No -d: with MEMORY_FILE_PATH the store lives beside the file, as a user switching only
    # the command gets it.
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "graphmem.cli", "mcp", "--tools", "server-memory"],
        env={
            "MEMORY_FILE_PATH": str(memory_file),
            "PYTHONPATH": str(ROOT),
            "GRAPHMEM_MODEL_PATH": model_path,
            "PATH": os.environ.get("PATH", ""),
        },
        cwd=str(memory_file.parent),
    )


class Session:
    """One MCP client session: tool calls, resource requests and the notifications heard."""

    def __init__(self, client: Client, heard: list[str]) -> None:
        self.client, self.heard = client, heard

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result = await self.client.call_tool(tool, arguments)
        text = "".join(getattr(b, "text", "") for b in result.content)
        return {"error": result.is_error, "text": text, "data": result.structured_content}

    async def reset(self) -> None:
        """An empty graph, as each vitest case starts from a new file."""
        graph = (await self.call("read_graph"))["data"]
        if graph["entities"]:
            await self.call("delete_entities", entityNames=[e["name"] for e in graph["entities"]])
        graph = (await self.call("read_graph"))["data"]
        if graph["relations"]:
            await self.call("delete_relations", relations=graph["relations"])
        self.heard.clear()


async def _session(
    params: StdioServerParameters, errlog: Path, body: Callable[[Session], Awaitable[Any]]
) -> Any:
    heard: list[str] = []

    async def on_message(message: Any) -> None:
        message = getattr(message, "root", message)
        if isinstance(message, mcp_types.ResourceUpdatedNotification):
            heard.append(str(message.params.uri))

    with anyio.fail_after(DEADLINE), errlog.open("a") as log:
        # "legacy": the initialize handshake of the protocol versions the reference speaks.
        async with Client(
            stdio_client(params, errlog=log), mode="legacy", message_handler=on_message
        ) as client:
            return await body(Session(client, heard))


# ---------------------------------------------------------------------- the cases

ALICE_BOB = [
    {"name": "Alice", "entityType": "person", "observations": []},
    {"name": "Bob", "entityType": "person", "observations": []},
]
ABC = [*ALICE_BOB, {"name": "Charlie", "entityType": "person", "observations": []}]


def _names(result: dict[str, Any]) -> list[str]:
    return [e["name"] for e in result["data"]["entities"]]


async def create_new_entities(s: Session) -> list[Any]:
    entities = [
        {"name": "Alice", "entityType": "person", "observations": ["works at Acme Corp"]},
        {"name": "Bob", "entityType": "person", "observations": ["likes programming"]},
    ]
    made = await s.call("create_entities", entities=entities)
    assert made["data"]["entities"] == entities
    graph = await s.call("read_graph")
    assert len(graph["data"]["entities"]) == 2
    return [made, graph]


async def no_duplicate_entities(s: Session) -> list[Any]:
    entities = [{"name": "Alice", "entityType": "person", "observations": ["works at Acme Corp"]}]
    await s.call("create_entities", entities=entities)
    again = await s.call("create_entities", entities=entities)
    assert again["data"]["entities"] == []
    graph = await s.call("read_graph")
    assert len(graph["data"]["entities"]) == 1
    return [again, graph]


async def empty_entity_array(s: Session) -> list[Any]:
    made = await s.call("create_entities", entities=[])
    assert made["data"]["entities"] == []
    return [made]


async def create_new_relations(s: Session) -> list[Any]:
    await s.call("create_entities", entities=ALICE_BOB)
    relations = [{"from": "Alice", "to": "Bob", "relationType": "knows"}]
    made = await s.call("create_relations", relations=relations)
    assert made["data"]["relations"] == relations
    graph = await s.call("read_graph")
    assert len(graph["data"]["relations"]) == 1
    return [made, graph]


async def no_duplicate_relations(s: Session) -> list[Any]:
    await s.call("create_entities", entities=ALICE_BOB)
    relations = [{"from": "Alice", "to": "Bob", "relationType": "knows"}]
    await s.call("create_relations", relations=relations)
    again = await s.call("create_relations", relations=relations)
    assert again["data"]["relations"] == []
    graph = await s.call("read_graph")
    assert len(graph["data"]["relations"]) == 1
    return [again, graph]


async def empty_relation_array(s: Session) -> list[Any]:
    made = await s.call("create_relations", relations=[])
    assert made["data"]["relations"] == []
    return [made]


async def relation_from_a_missing_entity(s: Session) -> list[Any]:
    # The repository's test expects a rejection; the published server stores it.
    await s.call("create_entities", entities=ALICE_BOB[:1])
    made = await s.call(
        "create_relations", relations=[{"from": "Ghost", "to": "Alice", "relationType": "knows"}]
    )
    return [made, await s.call("read_graph")]


async def relation_to_a_missing_entity(s: Session) -> list[Any]:
    await s.call("create_entities", entities=ALICE_BOB[:1])
    made = await s.call(
        "create_relations", relations=[{"from": "Alice", "to": "Ghost", "relationType": "knows"}]
    )
    return [made, await s.call("read_graph")]


async def add_observations(s: Session) -> list[Any]:
    await s.call("create_entities", entities=[
        {"name": "Alice", "entityType": "person", "observations": ["works at Acme Corp"]}])  # fmt: skip
    added = await s.call(
        "add_observations",
        observations=[{"entityName": "Alice", "contents": ["likes coffee", "has a dog"]}],
    )
    assert added["data"]["results"] == [
        {"entityName": "Alice", "addedObservations": ["likes coffee", "has a dog"]}
    ]
    graph = await s.call("read_graph")
    assert len(graph["data"]["entities"][0]["observations"]) == 3
    return [added, graph]


async def no_duplicate_observations(s: Session) -> list[Any]:
    await s.call("create_entities", entities=[
        {"name": "Alice", "entityType": "person", "observations": ["works at Acme Corp"]}])  # fmt: skip
    await s.call(
        "add_observations", observations=[{"entityName": "Alice", "contents": ["likes coffee"]}]
    )
    added = await s.call(
        "add_observations",
        observations=[{"entityName": "Alice", "contents": ["likes coffee", "has a dog"]}],
    )
    assert added["data"]["results"][0]["addedObservations"] == ["has a dog"]
    graph = await s.call("read_graph")
    assert len(graph["data"]["entities"][0]["observations"]) == 3
    return [added, graph]


async def observations_for_a_missing_entity(s: Session) -> list[Any]:
    added = await s.call(
        "add_observations",
        observations=[{"entityName": "NonExistent", "contents": ["some observation"]}],
    )
    assert added["error"] and "Entity with name NonExistent not found" in added["text"]
    return [added]


async def delete_entities(s: Session) -> list[Any]:
    await s.call("create_entities", entities=ALICE_BOB)
    done = await s.call("delete_entities", entityNames=["Alice"])
    graph = await s.call("read_graph")
    assert _names(graph) == ["Bob"]
    return [done, graph]


async def delete_cascades_to_relations(s: Session) -> list[Any]:
    await s.call("create_entities", entities=ABC)
    await s.call("create_relations", relations=[
        {"from": "Alice", "to": "Bob", "relationType": "knows"},
        {"from": "Bob", "to": "Charlie", "relationType": "knows"}])  # fmt: skip
    await s.call("delete_entities", entityNames=["Bob"])
    graph = await s.call("read_graph")
    assert len(graph["data"]["entities"]) == 2 and graph["data"]["relations"] == []
    return [graph]


async def delete_missing_entities(s: Session) -> list[Any]:
    done = await s.call("delete_entities", entityNames=["NonExistent"])
    graph = await s.call("read_graph")
    assert graph["data"]["entities"] == []
    return [done, graph]


async def delete_observations(s: Session) -> list[Any]:
    await s.call("create_entities", entities=[{
        "name": "Alice", "entityType": "person",
        "observations": ["works at Acme Corp", "likes coffee"]}])  # fmt: skip
    done = await s.call(
        "delete_observations", deletions=[{"entityName": "Alice", "observations": ["likes coffee"]}]
    )
    graph = await s.call("read_graph")
    assert graph["data"]["entities"][0]["observations"] == ["works at Acme Corp"]
    return [done, graph]


async def delete_observations_of_a_missing_entity(s: Session) -> list[Any]:
    done = await s.call(
        "delete_observations",
        deletions=[{"entityName": "NonExistent", "observations": ["some observation"]}],
    )
    assert not done["error"]
    graph = await s.call("read_graph")
    assert graph["data"]["entities"] == []
    return [done, graph]


async def delete_specific_relations(s: Session) -> list[Any]:
    await s.call("create_entities", entities=ALICE_BOB)
    await s.call("create_relations", relations=[
        {"from": "Alice", "to": "Bob", "relationType": "knows"},
        {"from": "Alice", "to": "Bob", "relationType": "works_with"}])  # fmt: skip
    done = await s.call(
        "delete_relations", relations=[{"from": "Alice", "to": "Bob", "relationType": "knows"}]
    )
    graph = await s.call("read_graph")
    assert [r["relationType"] for r in graph["data"]["relations"]] == ["works_with"]
    return [done, graph]


async def read_an_empty_graph(s: Session) -> list[Any]:
    graph = await s.call("read_graph")
    assert graph["data"] == {"entities": [], "relations": []}
    return [graph]


async def read_the_complete_graph(s: Session) -> list[Any]:
    await s.call("create_entities", entities=[
        {"name": "Alice", "entityType": "person", "observations": ["works at Acme Corp"]}])  # fmt: skip
    await s.call(
        "create_relations", relations=[{"from": "Alice", "to": "Alice", "relationType": "self"}]
    )
    graph = await s.call("read_graph")
    assert len(graph["data"]["entities"]) == 1 and len(graph["data"]["relations"]) == 1
    return [graph]


async def _search_world(s: Session) -> None:
    await s.call("create_entities", entities=[
        {"name": "Alice", "entityType": "person",
         "observations": ["works at Acme Corp", "likes programming"]},
        {"name": "Bob", "entityType": "person", "observations": ["works at TechCo"]},
        {"name": "Acme Corp", "entityType": "company", "observations": ["tech company"]}])  # fmt: skip
    await s.call("create_relations", relations=[
        {"from": "Alice", "to": "Acme Corp", "relationType": "works_at"},
        {"from": "Bob", "to": "Acme Corp", "relationType": "competitor"}])  # fmt: skip


def _search_case(query: str, names: list[str], relations: int | None = None) -> Any:
    async def case(s: Session) -> list[Any]:
        await _search_world(s)
        found = await s.call("search_nodes", query=query)
        # The reference's matches, in its order, lead (graphmem may add a few after them).
        assert _names(found)[: len(names)] == names
        if relations is not None:
            assert len(found["data"]["relations"]) >= relations
        return [found]

    return case


async def _open_world(s: Session) -> None:
    await s.call("create_entities", entities=ABC)
    await s.call("create_relations", relations=[
        {"from": "Alice", "to": "Bob", "relationType": "knows"},
        {"from": "Bob", "to": "Charlie", "relationType": "knows"}])  # fmt: skip


def _open_case(names: list[str], expect: list[str], relations: list[tuple[str, str]]) -> Any:
    async def case(s: Session) -> list[Any]:
        await _open_world(s)
        found = await s.call("open_nodes", names=names)
        assert sorted(_names(found)) == sorted(expect)
        got = [(r["from"], r["to"]) for r in found["data"]["relations"]]
        assert sorted(got) == sorted(relations)
        return [found]

    return case


async def resource_is_registered(s: Session) -> list[Any]:
    listed = (await s.client.list_resources()).resources
    ours = [r for r in listed if str(r.uri) == URI]
    assert len(ours) == 1
    r = ours[0]
    assert (r.name, r.title, r.mime_type) == (
        "knowledge-graph",
        "Knowledge Graph",
        "application/json",
    )
    return [r.model_dump(mode="json", exclude_none=True)]


async def resource_returns_the_graph(s: Session) -> list[Any]:
    await s.call("create_entities", entities=[
        {"name": "Alice", "entityType": "person", "observations": ["engineer"]}])  # fmt: skip
    read = await s.client.read_resource(URI)
    (content,) = read.contents
    assert str(content.uri) == URI and content.mime_type == "application/json"
    graph = json.loads(content.text)  # type: ignore[union-attr]
    assert graph == (await s.call("read_graph"))["data"]
    return [content.model_dump(mode="json", exclude_none=True)]


async def resource_subscriptions(s: Session) -> list[Any]:
    caps = s.client.server_capabilities
    assert caps is not None and caps.resources is not None and caps.resources.subscribe
    acks = [await s.client.subscribe_resource(URI)]  # type: ignore[func-returns-value]
    await s.call("create_entities", entities=ALICE_BOB[:1])
    await s.call("read_graph")  # a read tells nobody
    failed = await s.call("add_observations", observations=[{"entityName": "X", "contents": ["y"]}])
    assert failed["error"]  # a failed write tells nobody either
    await s.call("delete_entities", entityNames=["Nobody"])  # a write that changed nothing does
    heard_subscribed = list(s.heard)
    acks.append(await s.client.unsubscribe_resource(URI))  # type: ignore[func-returns-value]
    await s.call("create_entities", entities=ALICE_BOB[1:])
    assert heard_subscribed == [URI, URI] and s.heard == heard_subscribed
    return [[a.model_dump(mode="json", exclude_none=True) for a in acks], heard_subscribed]


CASES: dict[str, Any] = {
    "createEntities: creates new entities": create_new_entities,
    "createEntities: no duplicate entities": no_duplicate_entities,
    "createEntities: empty entity arrays": empty_entity_array,
    "createRelations: creates new relations": create_new_relations,
    "createRelations: no duplicate relations": no_duplicate_relations,
    "createRelations: empty relation arrays": empty_relation_array,
    "createRelations: missing from entity": relation_from_a_missing_entity,
    "createRelations: missing to entity": relation_to_a_missing_entity,
    "addObservations: adds to existing entities": add_observations,
    "addObservations: no duplicate observations": no_duplicate_observations,
    "addObservations: error for a missing entity": observations_for_a_missing_entity,
    "deleteEntities: deletes entities": delete_entities,
    "deleteEntities: cascades to relations": delete_cascades_to_relations,
    "deleteEntities: missing entities": delete_missing_entities,
    "deleteObservations: deletes observations": delete_observations,
    "deleteObservations: missing entity": delete_observations_of_a_missing_entity,
    "deleteRelations: deletes specific relations": delete_specific_relations,
    "readGraph: empty graph": read_an_empty_graph,
    "readGraph: complete graph": read_the_complete_graph,
    "searchNodes: by entity name": _search_case("Alice", ["Alice"], 1),
    "searchNodes: by entity type": _search_case("company", ["Acme Corp"]),
    "searchNodes: by observation content": _search_case("programming", ["Alice"]),
    "searchNodes: case insensitive": _search_case("ALICE", ["Alice"]),
    "searchNodes: relations with one matching endpoint": _search_case(
        "Acme", ["Alice", "Acme Corp"], 2
    ),
    "searchNodes: outgoing relations to unmatched entities": _search_case("Alice", ["Alice"], 1),
    "searchNodes: no matches": _search_case("NonExistent", []),
    "openNodes: specific nodes": _open_case(
        ["Alice", "Bob"], ["Alice", "Bob"], [("Alice", "Bob"), ("Bob", "Charlie")]
    ),
    "openNodes: all relations of opened nodes": _open_case(
        ["Alice", "Bob"], ["Alice", "Bob"], [("Alice", "Bob"), ("Bob", "Charlie")]
    ),
    "openNodes: relations of one node": _open_case(
        ["Bob"], ["Bob"], [("Alice", "Bob"), ("Bob", "Charlie")]
    ),
    "openNodes: outgoing relations to unopened nodes": _open_case(
        ["Alice"], ["Alice"], [("Alice", "Bob")]
    ),
    "openNodes: incoming relations from unopened nodes": _open_case(
        ["Charlie"], ["Charlie"], [("Bob", "Charlie")]
    ),
    "openNodes: missing nodes": _open_case(["NonExistent"], [], []),
    "openNodes: empty list": _open_case([], [], []),
    "resource: registered name, URI, title and mime type": resource_is_registered,
    "resource: returns the graph as JSON": resource_returns_the_graph,
    "resource: subscribe capability, acks and updated notifications": resource_subscriptions,
}


async def _all_cases(s: Session) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, case in CASES.items():
        await s.reset()
        try:
            out[name] = {"ok": True, "results": await case(s)}
        except AssertionError as exc:
            out[name] = {"ok": False, "why": repr(exc)}
    return out


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory, model_path: str) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("cases")
    ref_file, ours_file = folder / "ref" / "memory.jsonl", folder / "ours" / "memory.jsonl"
    ref_file.parent.mkdir()
    ours_file.parent.mkdir()

    async def both() -> tuple[dict[str, Any], dict[str, Any]]:
        ref = await _session(_reference(ref_file, folder), folder / "ref.log", _all_cases)
        ours = await _session(_graphmem(ours_file, model_path), folder / "ours.log", _all_cases)
        return ref, ours

    ref, ours = anyio.run(both)
    return {"reference": ref, "graphmem": ours}


def _same(name: str, ref: list[Any], ours: list[Any]) -> None:
    if not name.startswith("searchNodes"):
        assert ours == ref, name
        return
    (theirs,), (mine,) = ref, ours
    # The reference's matches first, in its order; then at most a few found by recall.
    assert _names(mine)[: len(_names(theirs))] == _names(theirs), name
    assert len(_names(mine)) - len(_names(theirs)) <= RECALL_EXTRA, name
    rels = lambda r: [(x["from"], x["to"], x["relationType"]) for x in r["data"]["relations"]]  # noqa: E731
    assert set(rels(mine)) >= set(rels(theirs)), name
    if name.endswith("no matches"):
        assert mine == theirs  # a query nothing relates to finds nothing, as in the reference


@pytest.mark.parametrize("name", list(CASES))
def test_a_reference_case_as_mcp_calls(answers: dict[str, Any], name: str) -> None:
    ref, ours = answers["reference"][name], answers["graphmem"][name]
    assert ref["ok"], f"the reference itself fails {name}: {ref.get('why')}"
    assert ours["ok"], f"graphmem fails {name}: {ours.get('why')}"
    _same(name, ref["results"], ours["results"])


# ---------------------------------------------------------------------- the file, and a switch


async def _write_alice_and_bob(s: Session) -> None:
    await s.call("create_entities", entities=[
        {"name": "Alice", "entityType": "person", "observations": ["test observation"]},
        {"name": "Bob", "entityType": "person", "observations": []}])  # fmt: skip
    await s.call(
        "create_relations", relations=[{"from": "Alice", "to": "Bob", "relationType": "knows"}]
    )


async def _read_back(s: Session) -> list[Any]:
    return [
        await s.call("read_graph"),
        await s.call("search_nodes", query="Alice"),
        await s.call("open_nodes", names=["Alice", "Bob"]),
    ]


def test_the_file_is_the_reference_s_and_survives_a_restart(tmp_path: Path, model_path: str):
    """file persistence cases: data survives a new process; the file holds one JSON line per
    entity, then per relation, each with its ``type``; what is read back has no ``type``;
    ``MEMORY_FILE_PATH`` (absolute) is where the file is written."""
    ref_file, ours_file = tmp_path / "ref" / "memory.jsonl", tmp_path / "ours" / "memory.jsonl"
    ref_file.parent.mkdir()
    ours_file.parent.mkdir()

    async def run() -> dict[str, Any]:
        out: dict[str, Any] = {}
        for side, params in (("ref", lambda: _reference(ref_file, tmp_path)),
                             ("ours", lambda: _graphmem(ours_file, model_path))):  # fmt: skip
            await _session(params(), tmp_path / f"{side}.log", _write_alice_and_bob)
            out[side] = await _session(params(), tmp_path / f"{side}.log", _read_back)
        return out

    out = anyio.run(run)
    (read, search, opened), (our_read, our_search, our_opened) = out["ref"], out["ours"]
    assert (our_read, our_opened) == (read, opened)
    _same("searchNodes: after a restart", [search], [our_search])
    graph = out["ref"][0]["data"]
    assert [e["name"] for e in graph["entities"]] == ["Alice", "Bob"]
    assert all("type" not in e for e in graph["entities"] + graph["relations"])
    # Byte for byte the reference's file, where MEMORY_FILE_PATH says; the store beside it.
    assert ours_file.read_bytes() == ref_file.read_bytes()
    lines = [json.loads(line) for line in ref_file.read_text().splitlines()]
    assert [line["type"] for line in lines] == ["entity", "entity", "relation"]
    assert (ours_file.parent / "memory.graphmem").is_dir()
    assert not (ROOT / "memory.graphmem").exists()


def test_switching_between_the_reference_and_graphmem(tmp_path: Path, model_path: str):
    """A user swaps the command back and forth on one MEMORY_FILE_PATH: each server answers
    with what the other wrote, deletions and type changes included."""
    file = tmp_path / "memory.jsonl"
    ref, ours = _reference(file, tmp_path), _graphmem(file, model_path)
    log = tmp_path / "servers.log"

    async def reference_writes(s: Session) -> Any:
        await _write_alice_and_bob(s)
        await s.call("create_entities", entities=[
            {"name": "Carol", "entityType": "person", "observations": ["runs the data team"]}])  # fmt: skip
        return (await s.call("read_graph"))["data"]

    async def graphmem_changes(s: Session) -> Any:
        seen = (await s.call("read_graph"))["data"]
        await s.call("delete_entities", entityNames=["Bob"])
        await s.call("add_observations", observations=[
            {"entityName": "Alice", "contents": ["moved to the platform team"]}])  # fmt: skip
        return seen, (await s.call("read_graph"))["data"]

    async def reference_changes(s: Session) -> Any:
        seen = (await s.call("read_graph"))["data"]
        # What only the file can say: a type changed, an entity gone (the reference keeps no
        # update tool, so a new graph is written the way a user edits it: delete, create).
        await s.call("delete_entities", entityNames=["Carol"])
        await s.call("create_entities", entities=[
            {"name": "Carol", "entityType": "manager", "observations": ["runs the data team"]}])  # fmt: skip
        await s.call("delete_observations", deletions=[
            {"entityName": "Alice", "observations": ["test observation"]}])  # fmt: skip
        return seen, (await s.call("read_graph"))["data"]

    async def graphmem_reads(s: Session) -> Any:
        return (await s.call("read_graph"))["data"], await s.call("search_nodes", query="data")

    async def run() -> list[Any]:
        first = await _session(ref, log, reference_writes)
        seen_by_ours, after_ours = await _session(ours, log, graphmem_changes)
        seen_by_ref, after_ref = await _session(ref, log, reference_changes)
        final, search = await _session(ours, log, graphmem_reads)
        return [first, seen_by_ours, after_ours, seen_by_ref, after_ref, final, search]

    first, seen_by_ours, after_ours, seen_by_ref, after_ref, final, search = anyio.run(run)
    assert seen_by_ours == first
    assert seen_by_ref == after_ours
    assert [e["name"] for e in after_ours["entities"]] == ["Alice", "Carol"]
    assert after_ours["relations"] == []
    assert final == after_ref
    carol = next(e for e in final["entities"] if e["name"] == "Carol")
    assert carol["entityType"] == "manager"
    assert "test observation" not in final["entities"][0]["observations"]
    assert _names(search)[:1] == ["Carol"]
