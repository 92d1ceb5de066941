"""Node keys: how a memory, a tag and a cluster are named as one node of the graph.

The mirror's adjacency, recall's walks and paths, the write planner, the export (networkx
graphs, the page's JSON, whose script reads the same prefixes) and the feedback counts all
address a node by one string, its table's prefix followed by its primary key: ``m:<memory
id>``, ``t:<tag name>``, ``c:<cluster id>``. The prefixes are defined here only, so every layer
spells a key the same way. The prefixes are two characters long on purpose: the hot paths of
the mirror test ``key[:2]`` and strip ``key[2:]``.
"""

from __future__ import annotations

MEMORY = "m:"
TAG = "t:"
CLUSTER = "c:"

# A node table (as the schema and ``edges.EdgeType.target`` name it) -> its prefix.
TABLE_PREFIX: dict[str, str] = {"Memory": MEMORY, "Tag": TAG, "Cluster": CLUSTER}
# A path step's ``node_type`` (``models.PathStep``) -> its prefix.
TYPE_PREFIX: dict[str, str] = {"memory": MEMORY, "tag": TAG, "cluster": CLUSTER}
# Edge types whose target is a hub (a tag or a cluster) -> the hub's prefix.
HUB_PREFIX: dict[str, str] = {"HasTag": TAG, "InCluster": CLUSTER}


def mnode(memory_id: str) -> str:
    """A memory's node key."""
    return MEMORY + memory_id


def tnode(tag: str) -> str:
    """A tag's node key."""
    return TAG + tag


def cnode(cluster_id: str) -> str:
    """A cluster's node key."""
    return CLUSTER + cluster_id
