"""Node keys: how a memory, a tag and a cluster are named as one node of the graph.

The mirror's adjacency, recall's walks and paths, the write planner, the export (networkx
graphs, the page's JSON, whose script reads the same prefixes) and the feedback counts all
address a node by one string, its table's prefix followed by its primary key: ``m:<memory
id>``, ``t:<tag name>``, ``c:<cluster id>``. The prefixes are defined here only, so every layer
spells a key the same way. The prefixes are two characters long on purpose: the hot paths of
the mirror test ``key[:2]`` and strip ``key[2:]``.
"""

from __future__ import annotations

import re
import uuid

MEMORY = "m:"
TAG = "t:"
CLUSTER = "c:"

# A node table (as the schema and ``edges.EdgeType.target`` name it) -> its prefix.
TABLE_PREFIX: dict[str, str] = {"Memory": MEMORY, "Tag": TAG, "Cluster": CLUSTER}
# A path step's ``node_type`` (``models.PathStep``) -> its prefix.
TYPE_PREFIX: dict[str, str] = {"memory": MEMORY, "tag": TAG, "cluster": CLUSTER}
# Edge types whose target is a hub (a tag or a cluster) -> the hub's prefix.
HUB_PREFIX: dict[str, str] = {"HasTag": TAG, "InCluster": CLUSTER}


# A hex string every digit of, or digits "e" digits, is a number to a loose JSON reader: the
# MCP Inspector's CLI (``--tool-arg id=123…``), a shell tool piping through ``jq``, a YAML
# config. Sent back as a number it fails a string field, or arrives rounded past 2^53. About
# one id in 1,800 of 16 hex digits is all digits, so a large store would hold several.
_NUMERIC = re.compile(r"[0-9]+(?:e[0-9]+)?")


def fresh_id(length: int) -> str:
    """A new random id of ``length`` hex digits that no JSON or YAML reader takes for a
    number (memories, versions, recalls and gaps are named by one)."""
    while True:
        candidate = uuid.uuid4().hex[:length]
        if not _NUMERIC.fullmatch(candidate):
            return candidate


def mnode(memory_id: str) -> str:
    """A memory's node key."""
    return MEMORY + memory_id


def tnode(tag: str) -> str:
    """A tag's node key."""
    return TAG + tag


def cnode(cluster_id: str) -> str:
    """A cluster's node key."""
    return CLUSTER + cluster_id
