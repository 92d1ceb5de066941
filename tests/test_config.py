"""Every number that changes results is a ``Config`` field; the rest are named as not settings.

Pure checks on the source and the model: no store is opened.
"""

from __future__ import annotations

import ast
from pathlib import Path

from graphmem import Config

PKG = Path(__file__).resolve().parent.parent / "graphmem"

# Weights, thresholds, penalties and shares that once lived in modules, with the defaults the
# benchmarks measured (moving them must not change a result).
MOVED = {
    "reject_penalty": 0.05,  # owner/feedback.py REJECT_PENALTY
    "use_boost": 0.05,  # owner/feedback.py USE_BOOST
    "learn_pairs_from": 5,  # owner/feedback.py MAX_PAIRS_FROM
    "topic_change": 0.3,  # agent.py TOPIC_CHANGE
    "correction_threshold": 0.4,  # text/slots.py CUE_MIN_COSINE
    "partial_correction_threshold": 0.5,  # text/slots.py PARTIAL_MIN_COSINE
    "cluster_growth": 0.25,  # was CLUSTER_GROWTH (memory.py, then owner/writer.py)
    "cluster_dims": 32,  # owner/clusters.py PCA_DIMS
}

# Module-level float constants that stay, and why they are not settings.
NOT_SETTINGS = {
    "adapters/mcp/kg.py:RELATED_COSINE": "the shape of one MCP tool's reply",
    "config.py:DEFAULT_OWNER_TIMEOUT": "a timeout (settings.py reads the env for it)",
    "embed.py:PROBE_TIMEOUT": "a timeout",
    "index/ann.py:RETRAIN_GROWTH": "the approximate index's upkeep",
    "owner/writer.py:SUPERSEDE_SLACK_S": "a tolerance between two stamps of one batch",
    "owner/clusters.py:STABLE_JACCARD": "which id a cluster keeps, not its members",
    "owner/feedback.py:BATCH_WINDOW": "the worker's batching",
    "recall/lifecycle.py:LIFECYCLE_MIN": "a bound its formula gives",
    "recall/lifecycle.py:LIFECYCLE_MAX": "a bound its formula gives",
    "recall/scope.py:FAR": "a sentinel similarity",
    "remote/client.py:CALL_TIMEOUT": "a timeout",
    "remote/client.py:CONNECT_TIMEOUT": "a timeout",
    "storage/engine.py:DRAIN_TIMEOUT": "a timeout",
    "storage/sandbox.py:KILL_GRACE": "a timeout",
    "storage/sandbox.py:START_TIMEOUT": "a timeout",
    "text/conflict.py:_PASSAGE_AGREEMENT": "the conflict reader's rule (bench/supersede.py)",
    "text/entities.py:RARE_SHARE": "the tagger's rule (tags must not depend on who opens)",
    "text/secret_patterns.py:ENTROPY_THRESHOLD": "the secret screen (not weakened per handle)",
    "text/secret_patterns.py:ENTROPY_THRESHOLD_LOWER": "the secret screen (not weakened per handle)",
}


def _float_constants() -> set[str]:
    found = set()
    for path in PKG.rglob("*.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign | ast.AnnAssign):
                value = node.value.operand if isinstance(node.value, ast.UnaryOp) else node.value
                target = node.targets[0] if isinstance(node, ast.Assign) else node.target
                if (
                    isinstance(value, ast.Constant)
                    and isinstance(value.value, float)
                    and isinstance(target, ast.Name)
                ):
                    found.add(f"{path.relative_to(PKG).as_posix()}:{target.id}")
    return found


def test_result_changing_numbers_are_config_fields_with_their_defaults() -> None:
    fields = Config.model_fields
    for name, default in MOVED.items():
        assert name in fields, name
        assert fields[name].default == default, name
        # each says what it does: a comment above it in config.py
    source = (PKG / "config.py").read_text().splitlines()
    for name in MOVED:
        row = next(i for i, line in enumerate(source) if line.strip().startswith(f"{name}:"))
        above = [line.strip() for line in source[max(0, row - 8) : row]]
        assert any(line.startswith("#") for line in above), f"{name} has no description"


def test_every_module_float_constant_is_a_named_non_setting() -> None:
    """A new weight or threshold belongs in Config; anything else is listed here with why."""
    assert _float_constants() == set(NOT_SETTINGS)
