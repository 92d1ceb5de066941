"""``graphmem demo``: a small store that shows remembering, correcting, searching and recall."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.tree import Tree

if TYPE_CHECKING:
    from ..memory import GraphMemory

DEMO_MEMORIES: list[dict[str, Any]] = [
    {"id": "demo-api-limit", "content": "The Billing API rate limit is 100 requests per minute per key.",
     "tags": ["billing-api"]},
    {"id": "demo-api-auth", "content": "The Billing API authenticates with short-lived JWTs issued by the Auth service.",
     "tags": ["billing-api", "auth"]},
    {"id": "demo-auth-owner", "content": "Maria owns the Auth service and reviews every change to src/auth/tokens.py.",
     "tags": ["auth"]},
    {"id": "demo-retry", "kind": "procedure",
     "content": "When the Billing API returns 429, back off exponentially starting at 2 seconds.",
     "tags": ["billing-api"]},
    {"id": "demo-pref", "kind": "preference",
     "content": "The user prefers concise answers with code examples in Python.", "tags": ["style"]},
    {"id": "demo-deploy", "kind": "procedure",
     "content": "Deploy the Billing API with `make deploy-billing` from the infra/ directory.",
     "tags": ["billing-api", "deploy"]},
    {"id": "demo-never", "kind": "negative", "triggers": ["force push", "git push -f"],
     "content": "Never force push to the main branch; open a pull request instead.",
     "tags": ["git"]},
]  # fmt: skip
DEMO_CORRECTION = {
    "id": "demo-api-limit-v2",
    "content": "Correction: the Billing API rate limit is now 250 requests per minute per key.",
    "kind": "correction",
    "source": "user_corrected",
    "tags": ["billing-api"],
}


def run_demo(mem: GraphMemory, console: Console) -> None:
    """Fill ``mem`` with the demo memories (replacing earlier demo ones) and show recall."""
    old = [
        m.id for m in mem.memories(include_inactive=True, limit=None) if m.id.startswith("demo-")
    ]
    for memory_id in old:
        mem.forget(memory_id, purge=True)
    console.print(f"[bold]graphmem demo[/bold] — store at {mem.path}\n")

    results = mem.remember_many([dict(m) for m in DEMO_MEMORIES])
    table = Table(title="1. remember")
    for col in ("id", "action", "kind", "tags"):
        table.add_column(col)
    for r in results:
        table.add_row(r.id, r.action, r.memory.kind, ", ".join(r.memory.tags))
    console.print(table)

    correction: dict[str, Any] = dict(DEMO_CORRECTION)
    fix = mem.remember(correction.pop("content"), **correction)
    console.print(
        f"\n2. a correction: [bold]{fix.id}[/bold] was {fix.action}"
        + (f" — it supersedes {', '.join(fix.superseded)} ({fix.reason})" if fix.superseded else "")
    )
    for m in mem.history(fix.id):
        state = "active" if m.active else f"superseded by {m.superseded_by}"
        console.print(escape(f"   history: {m.id:<20} {state:<32} {m.content}"))

    console.print('\n3. search "how fast can I call billing?" (vector similarity only)')
    for h in mem.search("how fast can I call billing?", limit=3):
        console.print(escape(f"   {h.score:.3f}  {h.memory.id:<20} {h.memory.content}"))

    for question in (
        "Who should review a change to how the Billing API checks tokens?",
        "I'm about to git push -f the release branch",
    ):
        console.print(f'\n4. recall "{question}" — what was found and why')
        tree = Tree(f"[bold]{question}[/bold]")
        for hit in mem.recall(question, limit=5):
            flags = f" ({', '.join(hit.flags)})" if hit.flags else ""
            branch = tree.add(
                escape(f"{hit.score:.3f} {hit.memory.id}{flags}: {hit.memory.content}")
            )
            branch.add("[dim]why: " + escape(hit.explain()) + "[/dim]")
        console.print(tree)
    mem.flush()
    s = mem.stats()
    console.print(
        f"\nStore: {s.memories} memories ({s.active} active), {s.tags} tags, "
        f"edges {', '.join(f'{k} {v}' for k, v in s.edges.items() if v)}."
    )
    console.print(
        f'Next: graphmem -d {mem.path} cypher "MATCH (m:Memory)-[:HasTag]->(t:Tag) RETURN t.name, count(*)"'
    )
