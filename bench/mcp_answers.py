"""What an MCP answer costs an agent: bytes per hit of `recall`, `search` and `explain`.

An agent pays in tokens for every byte a tool returns. This calls the tools through the MCP
SDK's real client (in process, the server of ``graphmem.adapters.mcp.tools``) on a store of the short
facts of ``bench/agentmem.py`` and measures, per answer of five hits:

- ``text``: the bytes of the answer's text content (what a model reads),
- ``memory``: the bytes of the hits' memory texts (what the agent asked for),
- ``per_hit``: (text - memory) / hits, the packaging per hit,
- ``budget``: text / (1.5 × memory + 250 × hits), the target of issue 22 (at most 1).

The default answers are measured against ``detail=true`` (the full structure every answer had
before) in the same run.

    python bench/mcp_answers.py [--questions 40] [--json bench/results-mcp-answers.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

TOOLS = {"recall": "context", "search": "query", "explain": "context"}
PER_HIT = 250  # bytes of packaging allowed per hit on top of 1.5 × the memory text
TEXT_FACTOR = 1.5


def answer_cost(result: Any, memory_text: list[str]) -> dict[str, float]:
    """The cost of one tool result against the memory texts of its hits."""
    text = "".join(getattr(block, "text", "") for block in result.content)
    n = max(len(memory_text), 1)
    memory = sum(len(t.encode()) for t in memory_text)
    size = len(text.encode())
    return {
        "hits": len(memory_text),
        "text": size,
        "structured": len(json.dumps(result.structured_content, separators=(",", ":")).encode()),
        "memory": memory,
        "per_hit": (size - memory) / n,
        "budget": size / (TEXT_FACTOR * memory + PER_HIT * n),
    }


def _texts(tool: str, structured: dict[str, Any]) -> list[str]:
    out = []
    for h in structured["hits"]:
        out.append(h["text"] if "text" in h else h["memory"]["content"])
    return out


def measure(mem: Any, questions: list[str], *, limit: int = 5) -> dict[str, Any]:
    """Per tool and mode (default, detail), the costs of the answers to ``questions``."""
    import anyio
    from mcp import Client

    from graphmem.adapters.mcp.tools import build_server

    rows: dict[str, list[dict[str, float]]] = {}

    async def main() -> None:
        async with Client(build_server(mem)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            has_detail = "detail" in tools["recall"].input_schema["properties"]
            for tool, arg in TOOLS.items():
                for mode in ("default", "detail") if has_detail else ("default",):
                    for q in questions:
                        args: dict[str, Any] = {arg: q, "limit": limit}
                        if mode == "detail":
                            args["detail"] = True
                        result = await client.call_tool(tool, args)
                        assert not result.is_error, result.content
                        texts = _texts(tool, result.structured_content)
                        if texts:
                            cost = answer_cost(result, texts)
                            rows.setdefault(f"{tool}/{mode}", []).append(cost)

    anyio.run(main)
    summary: dict[str, Any] = {}
    for key, costs in rows.items():
        summary[key] = {
            "answers": len(costs),
            "hits_mean": round(statistics.mean(c["hits"] for c in costs), 2),
            "text_bytes_median": statistics.median(c["text"] for c in costs),
            "memory_bytes_median": statistics.median(c["memory"] for c in costs),
            "per_hit_bytes_median": round(statistics.median(c["per_hit"] for c in costs), 1),
            "per_hit_bytes_max": round(max(c["per_hit"] for c in costs), 1),
            "budget_ratio_median": round(statistics.median(c["budget"] for c in costs), 3),
            "budget_ratio_max": round(max(c["budget"] for c in costs), 3),
        }
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--model-path", default=None)
    parser.add_argument("--json", dest="json_path", default=None)
    args = parser.parse_args()

    from agentmem import world
    from rich.console import Console
    from rich.table import Table

    from graphmem import GraphMemory

    facts, questions = world(seed=args.seed)
    # graphmem makes the ids, as it does for an agent's memories (the set's ids are short).
    items = [{k: v for k, v in f.items() if k != "id"} for f in facts]
    asked = [q["question"] for q in questions[: args.questions]]
    model = args.model_path  # None: GRAPHMEM_MODEL_PATH or the config files, as graphmem reads it
    with (
        tempfile.TemporaryDirectory() as folder,
        GraphMemory(Path(folder) / "memory", model_path=model) as mem,
    ):
        mem.remember_many(items)
        summary = measure(mem, asked)

    table = Table(title=f"MCP answers of 5 hits, {len(asked)} questions, {len(items)} memories")
    columns = ("tool/mode", "answers", "hits", "text B", "memory B", "per hit B", "max per hit B",
               "÷ budget", "max ÷ budget")  # fmt: skip
    for col in columns:
        table.add_column(col, justify="right")
    for key, s in summary.items():
        table.add_row(
            key, str(s["answers"]), str(s["hits_mean"]), str(s["text_bytes_median"]),
            str(s["memory_bytes_median"]), str(s["per_hit_bytes_median"]),
            str(s["per_hit_bytes_max"]), str(s["budget_ratio_median"]), str(s["budget_ratio_max"]),
        )  # fmt: skip
    Console(width=150).print(table)
    if args.json_path:
        result = {
            "command": "python bench/mcp_answers.py " + " ".join(sys.argv[1:]),
            "memories": len(items),
            "questions": len(asked),
            "limit": 5,
            "target": f"text <= {TEXT_FACTOR} x memory + {PER_HIT} x hits (budget ratio <= 1)",
            "results": summary,
        }
        Path(args.json_path).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
