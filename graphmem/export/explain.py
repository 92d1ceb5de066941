"""A recall as a tree for people: one branch per hit, under it the path from its seed.

The CLI's ``explain`` prints it and the MCP ``explain`` tool renders it as text.
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.tree import Tree

from ..models import clip


def recall_tree(context: str, hits: list[Any]) -> Tree:
    """A recall as a tree: one branch per hit, under it the path seed → edge → … → memory."""
    tree = Tree(f"[bold]recall[/bold] {escape(repr(context))} — {len(hits)} hit(s)")
    for h in hits:
        flags = f" [yellow]({escape(', '.join(h.flags))})[/yellow]" if h.flags else ""
        branch = tree.add(
            f"[bold]{h.score:.3f}[/bold] {escape(h.memory.id)} [dim]{h.memory.kind}[/dim]{flags} "
            f"{escape(clip(h.memory.content, 70))}"
        )
        node = branch
        for step in h.path:
            name = escape(step.node if step.node_type == "memory" else step.label)
            what = "" if step.node_type == "memory" else f"{step.node_type} "
            if step.edge is None:
                text = f"seed {what}{name} [cyan]{escape(str(step.via))}[/cyan] {step.score:.3f}"
            else:
                text = f"─[magenta]{escape(step.edge)}[/magenta]→ {what}{name} {step.score:.3f}"
            node = node.add(text)
        if h.contradicts:
            branch.add(f"[red]contradicts {escape(', '.join(h.contradicts))}[/red]")
    return tree
