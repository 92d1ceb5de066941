"""A small store with clusters, tags and forgotten memories, for the viz overview tests."""

from __future__ import annotations

from typing import Any

TOPICS = {
    "billing": [
        "The billing service retries failed card charges {} times",
        "Invoices for billing are generated on day {} of the month",
        "Billing refunds over {} euros need a manager's approval",
        "The billing API rate limit is {} requests per minute",
    ],
    "deploy": [
        "Deploys to production need {} approvals in the pipeline",
        "The deploy pipeline runs {} smoke tests after each rollout",
        "Rollbacks of a deploy take about {} minutes",
        "Canary deploys send {} percent of traffic to the new version",
    ],
    "frontend": [
        "The frontend bundle must stay under {} kilobytes gzipped",
        "Frontend buttons use {} pixel rounded corners",
        "The frontend dark theme was requested by {} users",
        "Frontend pages must render in under {} milliseconds",
    ],
}
PER_TOPIC = 12


def build(mem: Any) -> dict[str, Any]:
    """36 memories in three topics (tag per topic, every third also ``team``), clustered, then
    the first two billing memories forgotten.

    Returns ``{"ids": {topic: [ids]}, "forgotten": [ids], "team": [ids]}``.
    """
    items = []
    for topic, templates in TOPICS.items():
        for i in range(PER_TOPIC):
            text = templates[i % len(templates)].format(i + 2) + f" (note {topic}-{i})"
            items.append({"content": text, "tags": [topic] + (["team"] if i % 3 == 0 else [])})
    made = mem.remember_many(items)
    ids = {
        t: [m.id for m in made[k * PER_TOPIC : (k + 1) * PER_TOPIC]] for k, t in enumerate(TOPICS)
    }
    mem.rebuild_clusters(min_cluster_size=3)
    forgotten = ids["billing"][:2]
    for memory_id in forgotten:
        mem.forget(memory_id)
    team = [m.id for m, it in zip(made, items, strict=True) if "team" in it["tags"]]
    return {"ids": ids, "forgotten": forgotten, "team": team}
