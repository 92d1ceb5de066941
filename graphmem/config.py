"""Tunable defaults. A ``Config`` is passed to ``GraphMemory(config=...)``; every field has the
default a user gets."""

from __future__ import annotations

import os

from pydantic import BaseModel, ConfigDict, Field

from .edges import default_walk_weights

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_PATH_ENV = "GRAPHMEM_MODEL_PATH"
DB_ENV = "GRAPHMEM_DB"
TOKEN_ENV = "GRAPHMEM_TOKEN"
TIMEOUT_ENV = "GRAPHMEM_TIMEOUT"
# Seconds a new opener waits for a store whose holder is starting up or has just exited.
DEFAULT_HOLDER_TIMEOUT = 20.0


class Config(BaseModel):
    """Write-path and recall settings."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # write path
    max_content_chars: int = Field(20_000, gt=0)
    # Size limits for the other fields, so one call cannot bloat the store or the mirror.
    max_tag_chars: int = Field(100, gt=0)
    max_tags: int = Field(100, gt=0)
    max_metadata_bytes: int = Field(64_000, gt=0)
    max_metadata_depth: int = Field(16, gt=0)
    max_triggers: int = Field(50, gt=0)
    max_trigger_chars: int = Field(500, gt=0)
    max_file_paths: int = Field(100, gt=0)
    max_file_path_chars: int = Field(4096, gt=0)
    max_name_chars: int = Field(256, gt=0)  # project, session_id
    dedupe_threshold: float = Field(0.95, gt=0, le=1)
    conflict_threshold: float = Field(0.75, gt=0, le=1)
    relate_threshold: float = Field(0.55, ge=0, le=1)
    relate_top_k: int = Field(3, ge=0)
    redact_secrets: bool = False
    link_sequence: bool = True

    # recall
    seed_threshold: float = Field(0.4, ge=-1, le=1)
    seed_limit: int = Field(10, gt=0)
    depth: int = Field(2, ge=0)
    decay: float = Field(0.7, gt=0, le=1)
    # Walk weight per edge type (RelatesTo edges carry their own); see graphmem.edges.
    edge_weights: dict[str, float] = Field(default_factory=default_walk_weights)
    # A mention of an entity leads to its home (the memory titled with it) like a hyperlink:
    # stronger than a tag two memories merely share.
    home_weight: float = Field(1.2, ge=0)
    max_fanout: int = Field(20, gt=0)
    # RRF with a small k keeps a strong first place in either list strong; the BM25 list
    # counts 1.5× the dense one (names, numbers and rare words are precise evidence).
    rrf_k: int = Field(5, gt=0)
    lexical_weight: float = Field(1.5, ge=0)
    walk_weight: float = Field(1.0, ge=0)
    entity_weight: float = Field(0.8, ge=0)
    # How much a result that resembles one ranked above it gives way (0 turns this off).
    diversity: float = Field(0.6, ge=0)

    # maintenance
    link_learning_rate: float = Field(0.2, gt=0, le=1)
    verify_threshold: float = Field(0.45, ge=-1, le=1)
    cluster_every_recalls: int = Field(1000, ge=0)
    cluster_every_writes: int = Field(500, ge=0)
    min_cluster_size: int = Field(5, ge=2)
    # maintain(): dormancy below this effective confidence for memories used at most
    # dormant_max_uses times; RelatesTo links kept per memory
    dormant_below: float = Field(0.05, ge=0, le=1)
    dormant_max_uses: int = Field(1, ge=0)
    max_links: int = Field(30, ge=1)


def model_path_from_env() -> str | None:
    """The model directory named by ``GRAPHMEM_MODEL_PATH``, if set."""
    value = os.environ.get(MODEL_PATH_ENV, "").strip()
    return value or None
