"""Tunable defaults. A ``Config`` is passed to ``GraphMemory(config=...)``; every field has the
default a user gets."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import pydantic
from pydantic import BaseModel, ConfigDict, Field, model_validator

from .edges import default_walk_weights
from .errors import ValidationError

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_PATH_ENV = "GRAPHMEM_MODEL_PATH"
DB_ENV = "GRAPHMEM_DB"
TOKEN_ENV = "GRAPHMEM_TOKEN"
TIMEOUT_ENV = "GRAPHMEM_TIMEOUT"
# Seconds a new opener waits for a store whose owner is starting up or has just exited.
DEFAULT_OWNER_TIMEOUT = 20.0


# Recall settings that were removed (bench/README.md says why, with the figures): a
# configuration that still names one is told what became of it, not only that the key is
# unknown.
_ABLATED = "did not earn its place in the ablation of recall's settings and was removed"
RETIRED = {
    "chain_near": f"relation words weighed by their distance to the name: {_ABLATED}",
    "chain_reversed": f"facts stating a relation the other way round giving way: {_ABLATED}",
    "relevance_weight": f"walked-to memories weighed by their own match: {_ABLATED}",
    "reseeds": f"second-round walks from the best memories reached: {_ABLATED}",
    "chain_kind": "a first fact leading to the kind before the name: dropped, it gained nothing",
    "chain_growth": "replaced by chain_step: a chain now scores the geometric mean of its "
    "facts' matches, times chain_step for each fact after the first",
}


class Config(BaseModel):
    """Write-path and recall settings."""

    # Every weight is finite: an infinite one makes scores inf or NaN (inf × 0 in a product of
    # factors), and their order meaningless.
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    # graphmem's one exception root at the public boundary, not pydantic's.
    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except pydantic.ValidationError as exc:
            raise _invalid(exc) from None

    @classmethod
    def model_validate(cls, obj: Any, **options: Any) -> Config:
        try:
            return super().model_validate(obj, **options)
        except pydantic.ValidationError as exc:
            raise _invalid(exc) from None

    @classmethod
    def model_validate_json(cls, json_data: Any, **options: Any) -> Config:
        try:
            return super().model_validate_json(json_data, **options)
        except pydantic.ValidationError as exc:
            raise _invalid(exc) from None

    @model_validator(mode="before")
    @classmethod
    def _not_retired(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            gone = sorted(k for k in data if k in RETIRED)
            if gone:
                what = "; ".join(f"{k}, {RETIRED[k]}" for k in gone)
                raise ValueError(f"no longer a setting: {what}. Delete it from the configuration")
        return data

    # write path
    max_content_chars: int = Field(20_000, gt=0)
    # Size limits for the other fields, so one call cannot bloat the store or the mirror.
    max_tag_chars: int = Field(100, gt=0)
    max_tags: int = Field(100, gt=0)
    max_metadata_bytes: int = Field(64_000, gt=0)
    # At most 100: deeper, encoding it would pass the interpreter's recursion limit.
    max_metadata_depth: int = Field(16, gt=0, le=100)
    max_triggers: int = Field(50, gt=0)
    max_trigger_chars: int = Field(500, gt=0)
    max_file_paths: int = Field(100, gt=0)
    max_file_path_chars: int = Field(4096, gt=0)
    max_name_chars: int = Field(256, gt=0)  # project, session_id
    dedupe_threshold: float = Field(0.95, gt=0, le=1)
    conflict_threshold: float = Field(0.75, gt=0, le=1)
    # A paraphrase (same names in the same roles, other words: slots.paraphrase) reinforces the
    # stored fact from this cosine up; a restatement in the same words from dedupe_threshold.
    paraphrase_threshold: float = Field(0.75, gt=0, le=1)
    # A correction in other words (text.slots.replaces) can be far from the old statement in
    # embedding space ("Kenji is now the team lead for Payments" vs "The team lead for Payments
    # is Marta": cosine 0.44); the structural checks carry it, this cosine only keeps unrelated
    # texts out ...
    correction_threshold: float = Field(0.4, ge=-1, le=1)
    # ... and one that shares only part of the old statement's attribute ("The user moved to
    # Porto" / "The user lives in Lisbon": the subject, not the verb) needs this much.
    partial_correction_threshold: float = Field(0.5, ge=-1, le=1)
    relate_threshold: float = Field(0.55, ge=0, le=1)
    relate_top_k: int = Field(3, ge=0)
    # A write of at most this many memories returns once journalled, and reaches the database
    # just after (graphmem.owner.journal); 0 writes every batch synchronously.
    write_behind_items: int = Field(16, ge=0)
    # Writes are refused (DiskFullError) while the store's disk has less than this free, so
    # the database never runs out of space mid-write (graphmem.storage.diskspace); 0 turns it off.
    min_free_disk_mb: float = Field(64, ge=0)
    # Kùzu's page cache for the store, in MB (None: Kùzu's default, 80% of the machine's RAM).
    # Its bookkeeping is resident in proportion to its size, used or not: about 45 MB per open
    # store at the default on a 24 GB machine, 4 MB at 1024 (a server of many stores sets it).
    buffer_pool_mb: int | None = Field(None, ge=16)
    # The largest the store's database file may grow, in GB (None: Kùzu's default, 8 TB).
    # Kùzu reserves that much address space per open database, so one process can hold
    # about 15 stores at the default; a server of many stores sets it (64 GB: 2,000).
    max_db_gb: int | None = Field(None, ge=1)
    redact_secrets: bool = False
    link_sequence: bool = True
    # Weight of the RelatesTo link from one memory of a session to the next.
    sequence_weight: float = Field(0.6, ge=0, le=1)
    # Without a fitted cluster model (after a reopen) a new memory joins the nearest cluster
    # this close (cosine).
    centroid_join: float = Field(0.6, ge=-1, le=1)

    # cypher(): what one caller's statement may use in the sandbox (graphmem.storage.sandbox): the
    # worker's memory beyond what it needs to open the store, and the rows and bytes it returns.
    cypher_memory_mb: int = Field(1024, ge=64)
    cypher_max_rows: int = Field(100_000, gt=0)
    cypher_max_bytes: int = Field(32 * 1024 * 1024, gt=0)

    # recall
    seed_threshold: float = Field(0.4, ge=-1, le=1)
    seed_limit: int = Field(10, gt=0)
    depth: int = Field(2, ge=0)
    decay: float = Field(0.7, gt=0, le=1)
    # Every edge weight a walk uses: the registry's (graphmem.edges), a RelatesTo link carries
    # its own learned weight, and an edge type missing here weighs "other".
    edge_weights: dict[str, float] = Field(
        default_factory=lambda: {**default_walk_weights(), "other": 0.3}
    )
    # A walk stops where its score could no longer move a result (scores are on a 0..~2 scale).
    min_walk_score: float = Field(0.08, ge=0)
    # A mention of an entity leads to its home (the memory titled with it) like a hyperlink:
    # stronger than a tag two memories merely share.
    home_weight: float = Field(1.2, ge=0)
    # A tag with no home (short facts have no titles): its members that best match the context
    # stand in for it, this many.
    stand_in_homes: int = Field(0, ge=0)
    max_fanout: int = Field(20, gt=0)
    # RRF with a small k keeps a strong first place in either list strong; the BM25 list
    # counts 1.5× the dense one (names, numbers and rare words are precise evidence).
    rrf_k: int = Field(5, gt=0)
    lexical_weight: float = Field(1.5, ge=0)
    # A lexical match scoring below this share of the best one takes no place in the BM25
    # ranking: rank fusion would otherwise give the many memories that share only a common
    # word with the context (a person's name on half of a conversation's turns) the places
    # after the few real matches, short ones first.
    lexical_floor: float = Field(0.3, ge=0, le=1)
    # The turns of conversations also rank by their session's place in a ranking of sessions
    # by the mean similarity of their session_top best turns, fused by rank at session_weight
    # (recall.ordering.by_session; 0 turns it off): a conversation where several turns are about
    # the context is evidence the walk alone does not weigh.
    session_weight: float = Field(0.5, ge=0)
    session_top: int = Field(3, gt=0)
    walk_weight: float = Field(1.0, ge=0)
    entity_weight: float = Field(0.8, ge=0)
    # An entity walk starts at entity_weight / (other members)^(0.5 + entity_specificity): a
    # name many memories carry says less about any one of them, like a common word.
    entity_specificity: float = Field(0.25, ge=0)
    # Chains of facts from the entities the context names (chains.chain): their facts, best
    # chain first, are a ranking of their own; the first gets chain_weight on top of its fused
    # score, the n-th chain_weight × (rrf_k + 1) / (rrf_k + n), for chain_facts facts (0 turns
    # chains off). chain_width chains of each length go on; a chain scores the geometric mean
    # of its facts' matches, × chain_step for each fact after the first.
    chain_weight: float = Field(4.0, ge=0)
    chain_width: int = Field(10, gt=0)
    chain_step: float = Field(0.9, gt=0)
    # A chain ranking led by a chain whose score is below this counts in proportion (a weak
    # match says no more than the fused ranking).
    chain_sure: float = Field(0.3, ge=0)
    chain_facts: int = Field(10, gt=0)
    # A chain steps through facts: memories of at most this many words that are not episodes.
    # A longer text (a passage) names many things at once and is reached through its title and
    # tags instead; an episode records what happened, not how things relate.
    chain_fact_words: int = Field(20, gt=0)
    # What kind of thing a name is, the store says by the words written next to it ("the
    # pg-push datastore", "team Growth"): kind_share is the share of its memories that do.
    # A chain that ends at the kind asked for ("which team": a fact that says "team", or names
    # an entity of that kind) scores 1 + chain_answer × share times.
    chain_answer: float = Field(2.0, ge=0)
    # A first fact that leads to an entity like those the question's nearest relation word
    # links in other facts ("the upstream of X": facts saying "upstream" link services; the
    # entities' memories' mean embeddings compared) scores up to 1 + chain_like times.
    chain_like: float = Field(1.5, ge=0)
    # How much a result that resembles one ranked above it gives way (0 turns this off).
    diversity: float = Field(1.0, ge=0)
    # Results closer than this (cosine) to one ranked above them count as partly redundant.
    redundant_above: float = Field(0.5, ge=-1, le=1)
    # A memory that ends in a question ("What did it look like?") asks rather than tells: its
    # score is multiplied by this (1 turns this off). The answer, if any, is in what follows
    # it, which a walk reaches along the session's sequence link.
    asking_weight: float = Field(0.7, gt=0, le=1)
    # Ranking by lifecycle: the boost for memories of the current session, and the half-life
    # of confidence per kind ("inferred" for memories the system inferred; 30 days otherwise).
    session_boost: float = Field(1.15, ge=1)
    half_life_days: dict[str, float] = Field(
        default_factory=lambda: {
            "correction": 365.0,
            "preference": 90.0,
            "procedure": 60.0,
            "fact": 30.0,
            "negative": 365.0,
            "inferred": 7.0,
        }
    )

    def edge_weight(self, edge: str) -> float:
        """The weight of an edge type (``other`` for a type not listed)."""
        weights = self.edge_weights
        return weights.get(edge, weights.get("other", 0.3))

    # MemoryAgent: below this cosine between consecutive contexts the topic counts as changed,
    # and memories already surfaced may surface again (the agent's topic_threshold default).
    topic_change: float = Field(0.3, ge=-1, le=1)

    # maintenance
    link_learning_rate: float = Field(0.2, gt=0, le=1)
    verify_threshold: float = Field(0.45, ge=-1, le=1)
    # Feedback: links are strengthened among at most this many of a recall's verified (or a
    # feedback's used) memories, the best first; a used memory's confidence rises by
    # use_boost, a rejected one's falls by reject_penalty.
    learn_pairs_from: int = Field(5, ge=0)
    use_boost: float = Field(0.05, ge=0, le=1)
    reject_penalty: float = Field(0.05, ge=0, le=1)
    cluster_every_recalls: int = Field(1000, ge=0)
    cluster_every_writes: int = Field(500, ge=0)
    # A write-triggered cluster rebuild also waits until the store has grown by this share
    # since the last: a rebuild costs time in proportion to the store, so this keeps its cost
    # per write flat.
    cluster_growth: float = Field(0.25, ge=0)
    min_cluster_size: int = Field(5, ge=2)
    # Clusters are found by HDBSCAN on the vectors reduced by PCA to this many dimensions.
    cluster_dims: int = Field(32, gt=0)
    # maintain(): dormancy below this effective confidence for memories used at most
    # dormant_max_uses times; RelatesTo links kept per memory
    dormant_below: float = Field(0.05, ge=0, le=1)
    dormant_max_uses: int = Field(1, ge=0)
    max_links: int = Field(30, ge=1)


def model_path_from_env() -> str | None:
    """The model directory named by ``GRAPHMEM_MODEL_PATH``, if set."""
    value = os.environ.get(MODEL_PATH_ENV, "").strip()
    return value or None


def _invalid(exc: pydantic.ValidationError) -> ValidationError:
    problems = "; ".join(
        f"{'.'.join(map(str, e['loc'])) or 'Config'}: "
        + str(e["msg"]).removeprefix("Value error, ").removeprefix("Config is not valid: ")
        for e in exc.errors()
    )
    return ValidationError(f"Config is not valid: {problems}")
