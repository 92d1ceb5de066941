"""Chains of facts: recall's ranking for questions that hop from entity to entity.

"Who owns the service that the Billing API depends on?" is answered by a fact about the Billing
API that names another entity (a bridge: ledger), then a fact about ledger. ``chain`` runs a beam
search over such chains from the entities the context names; each fact is judged by the
question's relation words the chain has not used yet (``Relation``: lexical, dense, word order
and kinds read by ``phrasing``). ``recall.walk_all`` fuses the facts of the best chains into the
ranking (``chain_ranking``) and ``chain_tree`` gives each its path for ``hit.explain()``.

Chains step only through short facts (``is_fact``) of entities most of whose memories are such
facts (``chainable``): passages and conversation turns are reached by the walks instead.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..index.mirror import Mirror
from ..keys import TAG, mnode
from ..text.entities import positions, words
from ..text.lexical import TermRows, stem, tokenize
from ..text.phrasing import (
    PREPOSITIONS,
    TYPE_STEMS,
    Layout,
    adverb,
    asked_kind,
    distances,
    kind_is_object,
    layout,
    objects_said,
    possessives,
    terms_held,
    typed_as,
    variants,
)
from ..text.question import read, relation_text
from .aliases import aliases_of
from .scope import Scope
from .walk import Step, Tree

if TYPE_CHECKING:
    from ..config import Config

# How many facts that say a relation word tell what kind of entities it links (a bound on the
# work of one recall; a word many facts say is typical after a few hundred of them).
PROFILE_FACTS = 300
# How many of an entity's memories tell its kind and its mean direction: the share and the
# mean of a hub are plain after a few hundred, and reading every member of a hub that a first
# fact names cost seconds per recall at a million memories (a tag of 200k members).
ENTITY_SAMPLE = 128
# Whether a relation word leads to a kind of thing (``Relation.leads_to_kind``) is plain from a
# few dozen of the facts that say it, each entity judged by a few dozen of its memories.
KIND_FACTS = 30
KIND_SAMPLE = 32


def sample(slots: np.ndarray, size: int | None = None) -> np.ndarray:
    """At most ``size`` (default ``ENTITY_SAMPLE``) of the slots, evenly spread over them in
    slot order (the same ones for the same members, whatever their order)."""
    size = ENTITY_SAMPLE if size is None else size
    if len(slots) <= size:
        return slots
    # By slot, not by place in ``slots``: a hub's members come in the order its edges were
    # added, which an update or a re-tag changes and a mirror rebuilt from the database
    # does not keep, so the same store answered differently after a reload. A partition
    # finds these order statistics without sorting every member.
    picks = np.linspace(0, len(slots) - 1, size).astype(np.int64)
    return np.partition(slots, picks)[picks]


class Phrase:
    """A text the context asks with (``relation_text``, ``onward_texts``): its embedding and,
    computed when first asked for, every memory's similarity to it (in a big store ``FAR``
    away from it): most recalls never judge a fact by an onward text."""

    def __init__(self, vec: np.ndarray, similar: Callable[[np.ndarray], np.ndarray]) -> None:
        self.vec = vec
        self._similar = similar
        self._sims: np.ndarray | None = None

    @property
    def sims(self) -> np.ndarray:
        if self._sims is None:
            self._sims = self._similar(self.vec)
        return self._sims


@dataclass
class Likeness:
    """How like a phrase each memory is, relative to the most like one. In a big store NaN
    away from the phrase until ``fill`` computes it from ``query`` over ``top``."""

    values: np.ndarray
    query: np.ndarray | None = None
    vectors: np.ndarray | None = None
    top: float = 1.0

    def fill(self, slots: np.ndarray) -> None:
        if self.query is None or self.vectors is None or len(slots) == 0:
            return
        todo = slots[np.isnan(self.values[slots])]
        if len(todo):
            exact = self.vectors[todo] @ self.query.astype(np.float32)
            self.values[todo] = np.maximum(exact, 0.0) / self.top


def likeness(mirror: Mirror, scope: Scope, phrase: Phrase | None, far: float) -> Likeness:
    """The ``Likeness`` of a phrase (the whole context where None)."""
    sims = scope.sims if phrase is None else phrase.sims
    dense = np.maximum(sims, 0.0).astype(np.float64)
    top = float(dense.max()) if len(dense) else 0.0
    top = top if top > 0 else 1.0
    if scope.query is None:
        return Likeness(dense / top)
    query = scope.query if phrase is None else phrase.vec
    return Likeness(np.where(sims == far, np.nan, dense / top), query, mirror.vectors, top)


@dataclass
class Relation:
    """What the context asks about the entities it names, per memory.

    ``terms`` holds BM25 of each word of the context outside the names ("who owns the service
    that depends on": own, servic, depend), one row a word; ``dense`` the cosine similarity
    relative to the best (it knows "maintains" is like "owns"). A fact's words count only
    outside its own names (``phrasing``)."""

    terms: TermRows
    dense: Likeness
    mirror: Mirror
    forms: list[frozenset[str]] = field(default_factory=list)
    # The row of the word naming the kind of thing asked for ("which team": team), or -1.
    answer: int = -1
    _kinds: dict[tuple[str, int, int | None], float] = field(default_factory=dict)
    # Per named entity, the rows of the relation words right next to it ("upstream of X").
    nearest: dict[str, list[int]] = field(default_factory=dict)
    like_weight: float = 0.0
    # How many facts a chain may hold: one per relation the context names (``relations_said``).
    relations: int = 1
    # How like each of the context's ``onward_texts`` each memory is: what a chain's second,
    # third, ... fact is judged by (the last for any fact beyond; ``dense`` where none).
    onward: list[Likeness] = field(default_factory=list)
    # Per chain start, the rows of the relation words of each level after the first from that
    # name (``question.Reading``; level 2 first: "owns" in "who owns the service that X depends
    # on"): what a chain's second, third, ... fact should lead to (``leads_like``).
    levels: dict[str, list[list[int]]] = field(default_factory=dict)
    # Per chain start, the rows of the words that state only relations beyond the first: a
    # first fact from that start is not judged by them lexically ("who owns the service X
    # depends on": a fact of X that says "owns" states X's owner, not what X depends on).
    beyond: dict[str, np.ndarray] = field(default_factory=dict)
    # How like the whole context each memory is: a one-relation question's fact by it too.
    whole: Likeness | None = None
    _centroids: dict[str, np.ndarray] = field(default_factory=dict)
    _profiles: dict[tuple[int, str], np.ndarray | None] = field(default_factory=dict)
    _tops: dict[bytes, float] = field(default_factory=dict)
    _read: dict[int, np.ndarray] = field(default_factory=dict)
    _aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def fill(self, slots: np.ndarray) -> None:
        for judged in (self.dense, *self.onward, *([self.whole] if self.whole else [])):
            judged.fill(slots)

    @property
    def nothing(self) -> np.ndarray:
        return np.zeros(len(self.terms), dtype=bool)

    def read(self, slot: int) -> np.ndarray:
        """Which relation words a fact holds outside its names."""
        held = self._read.get(slot)
        if held is None:
            mirror = self.mirror
            names = tuple(mirror.tags_of(mirror.ids[slot]))
            held = self._read[slot] = np.array(
                terms_held(mirror.content.get(slot, ""), self.forms, names), dtype=bool
            )
        return held

    def match(
        self, slots: np.ndarray, used: np.ndarray, place: int = 0, start: str = ""
    ) -> np.ndarray:
        """How well each memory matches the words a chain has not used yet, and the dense part:
        like the relation text for a chain's first fact (from ``start``: not by the words
        ``beyond`` its first relation), for the fact at ``place`` after it like the onward text
        of that level."""
        if place == 0 and start in self.beyond:
            used = used | self.beyond[start]
        key = used.tobytes()
        top = self._tops.get(key)
        if top is None:
            # The best any memory matches the words left: a chain that used "depends" judges
            # the next memory by "owns" alone, and a full match of what is left counts fully.
            top = self._tops[key] = self.terms.best(~used)
        if not len(slots):
            return np.zeros(0)
        held = np.array([self.read(s) for s in slots.tolist()], dtype=bool).T
        held = held.reshape(len(used), len(slots))
        lexical = (self.terms.at(slots) * (held & ~used[:, None])).sum(axis=0)
        lexical = lexical / top if top > 0 else lexical * 0.0
        dense = (
            self.onward[min(place, len(self.onward)) - 1] if place and self.onward else self.dense
        )
        values = dense.values[slots]
        if place == 0 and self.relations == 1 and self.whole is not None:
            # A question that names one relation is answered by one fact: judged by the whole
            # question as well, as search would judge it, not by its relation words alone.
            values = 0.5 * (values + self.whole.values[slots])
        return 0.5 * lexical + 0.5 * values

    def aliases(self, tag: str) -> tuple[str, ...]:
        """The tags of the same entity written other ways (``aliases_of``), per recall."""
        got = self._aliases.get(tag)
        if got is None:
            got = self._aliases[tag] = aliases_of(self.mirror, tag)
        return got

    def kind_share(self, tag: str, row: int, size: int | None = None) -> float:
        """The share of an entity's memories that write its name with the kind word of
        ``row`` next to it ("the pg-push datastore"): learnt from the store, no word list.
        ``size``: how many of its memories to read (default ``ENTITY_SAMPLE``)."""
        key = (tag, row, size)
        share = self._kinds.get(key)
        if share is None:
            mirror, forms = self.mirror, self.forms[row]
            members = sample(mirror.members(tag), size).tolist()
            typed = sum(typed_as(mirror.content.get(s, ""), tag[2:], forms) for s in members)
            share = self._kinds[key] = typed / len(members) if members else 0.0
        return share

    def centroid(self, tag: str) -> np.ndarray:
        """The mean direction of an entity's memories: what kind of thing it is, as far as
        the embedding tells."""
        got = self._centroids.get(tag)
        if got is None:
            members = sample(self.mirror.members(tag))
            vec = self.mirror.vectors[members].mean(axis=0) if len(members) else np.zeros(1)
            norm = float(np.linalg.norm(vec))
            got = self._centroids[tag] = vec / norm if norm > 0 else vec
        return got

    def near_side(self, tags: list[str], heres: list[np.ndarray]) -> int:
        """Which of a fact's entities is most like the entities whose mean directions are
        ``heres``: the side the relation leaves from. -1 where none can be compared (an entity
        with no memory left has no direction): then every side counts."""
        likeness = [
            max((float(c @ h) for h in heres if h.shape == c.shape), default=-np.inf)
            for c in (self.centroid(t) for t in tags)
        ]
        return int(np.argmax(likeness)) if max(likeness) > -np.inf else -1

    def profile(self, row: int, about: str) -> np.ndarray | None:
        """The kind of entities a relation word links to from an entity like ``about`` in this
        store: over the facts that say it (at most ``PROFILE_FACTS``), the mean centroid of the
        entities on the far side (all but the one most like ``about``), or None. Both sides
        would make "owner" (a service and a person) look like a service too, so a fact leading
        from a service to another service would pass for an owner fact."""
        key = (row, about)
        if key not in self._profiles:
            here = self.centroid(about)
            mirror = self.mirror
            vecs = []
            for slot in self.terms.slots(row)[:PROFILE_FACTS].tolist():
                tags = [TAG + t for t in mirror.tags_of(mirror.ids[slot])]
                if len(tags) >= 2:
                    near = self.near_side(tags, [here])
                    cents = [self.centroid(t) for i, t in enumerate(tags) if i != near]
                    vecs.append(np.mean(cents, axis=0))
            vec = np.mean(vecs, axis=0) if vecs else None
            self._profiles[key] = None if vec is None else vec / float(np.linalg.norm(vec))
        return self._profiles[key]

    def leads_like(
        self, slots: np.ndarray, about: str, place: int = 0, start: str = ""
    ) -> np.ndarray:
        """The factor of each fact of ``about`` at ``place`` in a chain from ``start``: 1 +
        like_weight × how much the other entity it names is like the entities the question's
        relation words of that place link elsewhere, scaled from 0 for the least like to 1 for
        the most like among the facts of the entity. For a first fact, the relation words
        nearest the name ("the upstream of X": facts that say "upstream" link services, so "X
        cannot start without Y" leads where the question does, "Ivo owns X" does not); for a
        later one, the words of its level from the start (``levels``: "who owns the service
        that X depends on": from the bridge, facts that lead where "owns" does). (The first
        fact read by level too, not by nearness, lost on the held-out pools: bench/README.md.)"""
        out = np.ones(len(slots))
        if place == 0:
            rows = self.nearest.get(about, [])
        else:
            by_level = self.levels.get(start, [])
            rows = by_level[place - 1] if place <= len(by_level) else []
        if not rows or self.like_weight <= 0 or len(slots) < 2:
            return out
        mirror = self.mirror
        same = {about, *self.aliases(about)}
        others = [
            [TAG + t for t in mirror.tags_of(mirror.ids[s]) if TAG + t not in same]
            for s in slots.tolist()
        ]
        for row in rows:
            prof = self.profile(row, about)
            if prof is None:
                continue
            sims = np.array(
                [max((float(self.centroid(t) @ prof) for t in o), default=np.nan) for o in others]
            )
            valid = ~np.isnan(sims)
            if valid.sum() < 2:
                continue
            lo, hi = float(np.nanmin(sims)), float(np.nanmax(sims))
            if hi > lo:
                out *= 1.0 + self.like_weight * np.where(valid, (sims - lo) / (hi - lo), 0.0)
        return out

    def used_by(self, slot: int) -> np.ndarray:
        return (self.terms.at(np.array([slot]))[:, 0] > 0) & self.read(slot)

    def answers(self, slot: int, bridge: str) -> float:
        """How much the fact a chain ends with names a thing of the kind asked for ("which
        team"): 1 if it says the word, else the largest ``kind_share`` of one of its other
        entities ("Payments": "the Payments team has standup at 9:30")."""
        if self.answer < 0:
            return 0.0
        mirror = self.mirror
        same = {bridge, *self.aliases(bridge)}
        others = [name for name in mirror.tags_of(mirror.ids[slot]) if TAG + name not in same]
        if self.terms.at(np.array([slot]))[self.answer, 0] > 0:
            # The word types the entity the chain came through, not where it ends: "the
            # image_resizer service (Henrik runs it)" ends at a person, whatever it says.
            text, forms = mirror.content.get(slot, ""), self.forms[self.answer]
            if not typed_as(text, bridge[len(TAG) :], forms) or any(
                typed_as(text, name, forms) for name in others
            ):
                return 1.0
        shares = [self.kind_share(TAG + name, self.answer) for name in others]
        return max(shares, default=0.0)

    def leads_to_kind(
        self, rows: list[int], mask: np.ndarray, max_words: int, named: set[str]
    ) -> bool:
        """Whether one of the relation words of ``rows`` links to things of the kind asked
        for in this store: most of the short facts under ``mask`` that say it (at most
        ``KIND_FACTS``) name an entity the store writes with the kind word ("X is called by Y"
        and "the Y service": "which service does X call" asks for one fact, "which team is X's
        owner in" for two). The entities the question names (``named`` tags) do not count:
        what they are is not where the relation leads, nor is the entity of each fact most like
        them (its near side, as in ``profile``)."""
        if self.answer < 0 or not named:
            return False
        mirror = self.mirror
        size = min(KIND_SAMPLE, ENTITY_SAMPLE)
        heres = [self.centroid(n) for n in sorted(named)]
        for row in rows:
            facts: list[list[str]] = []
            held = self.terms.slots(row)
            for slot in held[mask[held]].tolist():
                if len(facts) == KIND_FACTS:
                    break
                tags = [TAG + t for t in mirror.tags_of(mirror.ids[slot])]
                if len(tags) < 2 or not is_fact(mirror, slot, max_words):
                    continue
                near = self.near_side(tags, heres)
                facts.append([t for i, t in enumerate(tags) if i != near and t not in named])
            typed = 0
            for i, tags in enumerate(facts):
                typed += any(self.kind_share(t, self.answer, size) > 0 for t in tags)
                if 2 * typed >= len(facts):
                    return True
                if 2 * (typed + len(facts) - i - 1) < len(facts):
                    break
        return False


def relation_for(
    mirror: Mirror,
    config: Config,
    scope: Scope,
    context: str,
    names: list[str],
    starts: list[str],
    depth: int,
    rest: Phrase | None,
    onward: list[Phrase],
    far: float = -1.0,
) -> Relation:
    """The relation words of the context, for judging the facts of chains from the names
    ``starts`` (of ``names``, all the context names), at most ``depth`` after the first
    (``rest``: its relation text, ``onward``: its onward texts, ``question``). In a big store
    (``scope.query`` set) a similarity equal to ``far`` is unknown: the facts a chain judges
    are filled in."""
    text = relation_text(context, names)
    terms = mirror.lexical.term_scores(text, mirror.size)
    said = tokenize(text)
    rows = sorted(set(said))
    forms = [variants(t) for t in rows]
    kind = asked_kind(context)
    laid = layout(context)  # once: a long question is laid out afresh at each call
    nearest: dict[str, list[int]] = {}
    for n in names:
        d = distances(context, n, forms, laid)
        nearest[TAG + n] = [r for r in range(len(forms)) if d[r] == 0 and kind not in forms[r]]
    # The relation words proper: not the kind asked for, nor a type word.
    relational = [f if not (f & TYPE_STEMS) and kind not in f else frozenset() for f in forms]
    # "directly upstream of X" names one relation: an adverb says how, not which.
    adverbs = {stem(w) for w in words(context) if adverb(w)}
    relational = [frozenset() if f & adverbs else f for f in relational]
    # "store its data" names one relation, not two.
    objects = objects_said(context, relational)
    relational = [frozenset() if f & objects else f for f in relational]
    particles = _particles(laid, relational)
    relational = [frozenset() if f & particles else f for f in relational]
    # How often each relation word is said, less the times it is said as another way to say
    # the word before "or" ("who owns or maintains X": one relation).
    times = [said.count(t) for t in rows]
    for row, again in _alternatives(laid, relational).items():
        times[row] = max(0, times[row] - again)
    relational = [f if count else frozenset() for f, count in zip(relational, times, strict=True)]
    # The relation words alone judge a fact better than the whole question, whose names
    # would favour any fact about the same entity.
    relation = Relation(
        terms, likeness(mirror, scope, rest, far), mirror, forms,
        rows.index(kind) if kind in rows else -1, nearest=nearest, like_weight=config.chain_like,
    )  # fmt: skip
    # The kind asked for is one more fact to reach unless the question's verb takes it as its
    # object ("which channel does X use": ``kind_is_object``) or a relation word already leads
    # there in the store. The first wins over the store: "which region does X run in" where
    # the store says X runs on a cluster and the cluster is in a region is then read as one
    # fact: a review found it; at R@5 no question of the worlds others wrote is lost to the
    # rule and several are won (bench/README.md).
    asks_kind = (
        kind in rows
        and not kind_is_object(context)
        and not relation.leads_to_kind(
            [r for r, f in enumerate(relational) if f],
            scope.walk_mask,
            config.chain_fact_words,
            {TAG + n for n in names},
        )
    )
    relation.relations = relations_said(relational, asks_kind, times)
    if relation.relations > 1:

        def facts(slots: np.ndarray) -> np.ndarray:
            return facts_among(mirror, slots, scope.walk_mask, config.chain_fact_words)

        together = side_by_side(mirror, terms, relational, context, laid, facts)
        relation.relations = relations_said(relational, asks_kind, times, together)
    if relation.relations == 1:
        relation.whole = likeness(mirror, scope, None, far)
    if relation.relations < 2 or depth < 1:
        return relation  # a chain of one fact: nothing is judged by what lies beyond it
    relation.onward = [likeness(mirror, scope, o, far) for o in onward]
    reading = read(context, tuple(starts), depth + 1)
    for k, start in enumerate(starts):
        # A word said at several levels is at each ("the upstream of the upstream of X").
        at: set[tuple[str, int]] = {
            (t, level)
            for w, level in zip(reading.words, reading.levels[k], strict=True)
            if level
            for t in tokenize(w)
            if kind not in variants(t)
        }
        relation.levels[TAG + start] = [
            [r for r, t in enumerate(rows) if (t, level) in at] for level in range(2, depth + 2)
        ]
        later = {t for t, level in at if level >= 2} - {t for t, level in at if level == 1}
        if later:
            relation.beyond[TAG + start] = np.array([t in later for t in rows], dtype=bool)
    return relation


def side_by_side(
    mirror: Mirror,
    terms: TermRows,
    relational: list[frozenset[str]],
    context: str,
    laid: Layout,
    facts: Callable[[np.ndarray], np.ndarray],
) -> int:
    """How many pairs of relation words the context writes side by side that the store writes
    side by side too: "the backing store of X", "who takes care of X", "the tech lead of X"
    name one relation each, not two ("which data store" too, where the store writes
    "datastore" in two memories or more). A pair counts where at least two of the memories that
    hold both words (at most ``ENTITY_SAMPLE`` read, of which ``facts`` keeps those the
    chains may step through), and most of them, hold them side by side; "what does X depend
    on, and who owns that" holds "depend" and "own" apart in every fact. A word written possessive
    stands apart from the next ("the dependency's owner": two relations). Learnt from the
    store, no list of phrases (``laid``: the context's ``layout``); each pair is read once,
    however often a long context repeats it."""
    row_of = {form: r for r, forms in enumerate(relational) for form in forms}
    owned = possessives(context)
    judged: dict[tuple[int, int], bool] = {}
    together = 0
    for i, (first, second) in enumerate(itertools.pairwise(laid.stems)):
        a, b = row_of.get(first), row_of.get(second)
        if a is None or b is None or a == b or (i < len(owned) and owned[i]):
            continue
        if (a, b) not in judged:
            both = facts(sample(np.intersect1d(terms.slots(a), terms.slots(b))))
            held = 0
            for slot in both.tolist():
                fact = layout(mirror.content.get(slot, "")).stems
                held += any(
                    x in relational[a] and y in relational[b] for x, y in itertools.pairwise(fact)
                )
            # Or written as one word: "which data store" where the store writes "datastore".
            joined = mirror.frequency(laid.words[i] + laid.words[i + 1])[0] >= 2
            judged[(a, b)] = joined or (held >= 2 and 2 * held > len(both))
        together += judged[(a, b)]
    return together


def _particles(laid: Layout, relational: list[frozenset[str]]) -> frozenset[str]:
    """The stems of the prepositions the context writes right after a relation word: "sits
    behind X", "can't start without X" name one relation each; the preposition says which
    way the verb goes."""
    held = frozenset().union(*relational) if relational else frozenset()
    return frozenset(
        laid.stems[i]
        for i in range(1, len(laid.words))
        if laid.words[i] in PREPOSITIONS and laid.stems[i - 1] in held
    )


def _alternatives(laid: Layout, relational: list[frozenset[str]]) -> dict[int, int]:
    """Per relation word (its row in ``relational``), how many times the context says it as
    the other way to say the words right before an "or": "owns or maintains", "chat channel
    or mailing list" name one relation each. After the "or", at most as many relation words
    as stand right before it count ("who owns or maintains the upstream of X": maintains, not
    upstream), and each saying is taken off once ("who leads or manages the manager of X":
    the manager is still asked). Grammar (a coordinating conjunction), no list of phrases."""
    row_of = {form: r for r, forms in enumerate(relational) for form in forms}
    out: dict[int, int] = {}
    stems, ws = laid.stems, laid.words
    for i in range(1, len(ws) - 1):
        if ws[i] != "or":
            continue
        before = 0
        while before < i and stems[i - 1 - before] in row_of:
            before += 1
        j = i + 1
        while j < len(ws) and j - i <= before and stems[j] in row_of:
            out[row_of[stems[j]]] = out.get(row_of[stems[j]], 0) + 1
            j += 1
    return out


def relations_said(
    relational: list[frozenset[str]],
    asks_kind: bool,
    times: list[int] | None = None,
    together: int = 0,
) -> int:
    """How many relations a context names, so how many facts a chain may hold: its relation
    words (``relational``: empty for the kind asked for, type words and the object of another
    relation word), each as many times as it is said (``times``; "what does
    the service X depends on depend on": two; not where it is said after an "or" as another
    way to say the word before: ``_alternatives``), one more when it asks for a kind none of them
    leads to (``asks_kind``, ``Relation.leads_to_kind``: "which team is X's owner in": owner,
    then a team), one less for each pair of them written side by side as the store writes
    them (``together``, ``side_by_side``: "the backing store of X"), at least one. Each fact
    of a chain states one relation, so "who is the owner of invoice" is answered by one fact
    about invoice, not by "invoice depends on inventory-api" and the owner of inventory-api,
    however well that second fact matches "owner"."""
    times = times or [1] * len(relational)
    said = sum(n for forms, n in zip(relational, times, strict=True) if forms)
    return max(1, said + asks_kind - together)


@dataclass
class Chain:
    slots: tuple[int, ...]
    bridges: tuple[str, ...]  # the tag each fact was reached through (the start tag first)
    product: float  # of its facts' matches
    used: np.ndarray
    score: float = 0.0  # ``chain`` sets it: the mean match, × chain_step per fact after the first


def chain(
    mirror: Mirror,
    config: Config,
    scope: Scope,
    starts: list[Step],
    relation: Relation,
    hops: int,
    direct: Sequence[int] = (),
) -> list[Chain]:
    """Chains of facts from the entities the context names, at most ``hops`` facts long, best
    first.

    "Who owns the service that the Billing API depends on?": a chain is a fact about the
    Billing API that names another entity (ledger: a bridge), then a fact about that bridge,
    and so on. Each fact is judged by its match to the question's relation words that the
    chain has not used yet (``Relation``): "billing-api depends on ledger" uses "depends", so
    from ledger the owner fact is chosen, not its latency note nor its own dependency. A
    chain scores the geometric mean of its facts' matches, × ``chain_step`` for each fact after
    the first: judged per fact, a chain of two is as good as its facts, and a little less sure
    than one fact as good. A chain holds at most one fact per relation the context names
    (``Relation.relations``). A beam of ``chain_width`` chains per length keeps it cheap (the
    product orders chains of one length as the mean does).
    """
    width = config.chain_width
    mask, ids = scope.walk_mask, mirror.ids
    words_max = config.chain_fact_words
    fact_cache: dict[str, np.ndarray] = {}
    # Many chains of a beam reach the same bridge: judge each once.
    bridges_ok: dict[str, bool] = {}

    def facts(tag: str) -> np.ndarray:
        found = fact_cache.get(tag)
        if found is None:
            slots = mirror.members(tag)
            for other in relation.aliases(tag):
                slots = np.union1d(slots, mirror.members(other))
            found = fact_cache[tag] = facts_among(mirror, slots, mask, words_max)
            relation.fill(found)
        return found

    def extend(prefix: Chain | None, tag: str, factor: float) -> list[Chain]:
        nxt = facts(tag)
        used = relation.nothing if prefix is None else prefix.used
        if prefix is None:
            judged = relation.match(nxt, used, 0, tag) * relation.leads_like(nxt, tag)
        else:
            place, start = len(prefix.slots), prefix.bridges[0]
            judged = relation.match(nxt, used, place) * relation.leads_like(nxt, tag, place, start)
        out = []
        for slot, match in zip(nxt.tolist(), judged.tolist(), strict=True):
            if prefix is not None and slot in prefix.slots:
                continue
            slots = (slot,) if prefix is None else (*prefix.slots, slot)
            bridges = (tag,) if prefix is None else (*prefix.bridges, tag)
            out.append(Chain(slots, bridges, factor * match, used | relation.used_by(slot)))
        return out

    level: list[Chain] = []
    for start in starts:
        level.extend(extend(None, start.node, 1.0))
    level = _beam(level, width)
    # The direct hits (the best seeds) are judged as one-fact chains from a start they name,
    # by its relation words, where they are not among its facts (the tagger missed the name
    # there, "refund_worker.storage = raw-uploads", or the text is longer than a fact): a
    # chain displaces them only on a better match, not for their never being judged. They
    # lead nowhere: chains go on through tags.
    found = list(level) + _direct_chains(mirror, relation, starts, direct, facts, mask)
    for _ in range(min(hops, relation.relations) - 1):
        grown: list[Chain] = []
        for c in level:
            seen = set(c.bridges) | {a for b in c.bridges for a in relation.aliases(b)}
            for name in mirror.tags_of(ids[c.slots[-1]]):
                bridge = TAG + name
                # "infra" in a fact about Data Infra is the entity the chain came through,
                # under a part of its name: no hop.
                if bridge in seen or any(part_of(bridge, b) or part_of(b, bridge) for b in seen):
                    continue
                ok = bridges_ok.get(bridge)
                if ok is None:
                    ok = bridges_ok[bridge] = chainable(mirror, config, bridge)
                if not ok:
                    continue
                grown.extend(extend(c, bridge, c.product))
        level = _beam(grown, width)
        found.extend(level)
    for c in found:
        n = len(c.slots)
        c.score = max(c.product, 0.0) ** (1.0 / n) * config.chain_step ** (n - 1)
    if config.chain_answer > 0 and relation.answer >= 0:
        # A chain that ends where the question asks ("which team": at a team) wins.
        for c in found:
            c.score *= 1.0 + config.chain_answer * relation.answers(c.slots[-1], c.bridges[-1])
    return sorted(found, key=lambda c: (-c.score, c.slots))


def _direct_chains(
    mirror: Mirror,
    relation: Relation,
    starts: list[Step],
    direct: Sequence[int],
    facts: Callable[[str], np.ndarray],
    mask: np.ndarray,
) -> list[Chain]:
    """One-fact chains of the ``direct`` hits that write a start's name but are not among its
    ``facts``, judged as a first fact from it (by its match to the relation words; the lead
    factor of ``Relation.leads_like`` compares an entity's own facts, so it is left out)."""
    out: list[Chain] = []
    direct = [s for s in direct if mask[s]]
    parts = {s: word_parts(mirror.content.get(s, "")) for s in direct}
    for start in starts:
        name = word_parts(start.node[len(TAG) :])
        have = set(facts(start.node).tolist())
        slots = [s for s in direct if s not in have and name <= parts[s]]
        if not slots:
            continue
        found = np.array(slots, dtype=np.int64)
        relation.fill(found)
        judged = relation.match(found, relation.nothing, 0, start.node)
        out.extend(
            Chain((s,), (start.node,), match, relation.used_by(s))
            for s, match in zip(slots, judged.tolist(), strict=True)
        )
    return out


def word_parts(text: str) -> set[str]:
    """The words of a text, its dotted ones split ("refund_worker.storage" writes
    refund_worker: refund, worker, storage; a name is split alike: "settings.py")."""
    return {part for w in words(text) for part in w.split(".")}


def _beam(chains: list[Chain], width: int) -> list[Chain]:
    return sorted(chains, key=lambda c: (-c.product, c.slots))[:width]


def chainable(mirror: Mirror, config: Config, tag: str) -> bool:
    """Whether a chain may pass through a tag: a name most of whose memories are short facts,
    not a hub. Titled entities (passages) are reached through their homes like hyperlinks."""
    members = mirror.members(tag)
    for other in aliases_of(mirror, tag):
        # A person written once by handle and often by name is one entity of many facts.
        members = np.union1d(members, mirror.members(other))
    if len(members) < 2 or mirror.homes(tag) or mirror.others(tag) > config.max_fanout:
        return False
    if opener(mirror, tag, members):
        return False
    # An entity of short facts: a name that passages mention in passing is reached through
    # the passages' own tags and titles.
    facts = sum(is_fact(mirror, s, config.chain_fact_words) for s in members.tolist())
    return 2 * facts >= len(members)


def opener(mirror: Mirror, tag: str, members: np.ndarray) -> bool:
    """Whether a one-word tag is a word its memories open with, each time followed by a
    preposition ("Questions about X go to P", "Requests to X fan out to Y"): a capitalised
    sentence opener the tagger took for a name, not an entity. A chain through it would link
    every fact that opens so. An entity its facts open with goes on with what it does ("Quasar
    depends on Audit", "Leeds is where Ana works")."""
    name = tag[2:]
    if " " in name:
        return False
    for slot in sample(members).tolist():
        ws = words(mirror.content.get(slot, ""))
        if len(ws) < 2 or ws[0] != name or ws[1] not in PREPOSITIONS:
            return False
    return True


def chain_names(
    mirror: Mirror, config: Config, names: Iterable[str], context: str = ""
) -> list[str]:
    """The entity names a chain starts from: whole names ("ellis" and "island" are parts of
    "ellis island") of short facts, not hubs. A part the context also writes apart from the
    whole names it is in is a name of its own there ("... with @freya.n. Where does freya
    work?")."""
    names = list(names)
    split = {n: tuple(n.split(" ")) for n in names}
    parts = proper_parts(split.values())
    if parts and context:
        # Matched as the context's words are (folded: "josé" is written "jose" there).
        said = {t: words(" ".join(t)) for t in split.values()}
        wholes = [said[t] for t in split.values() if t not in parts]
        apart = _written_apart(words(context), {said[t] for t in parts}, wholes)
        parts = {t for t in parts if said[t] not in apart}
    return [n for n in names if split[n] not in parts and chainable(mirror, config, TAG + n)]


def _written_apart(
    toks: tuple[str, ...], parts: set[tuple[str, ...]], wholes: list[tuple[str, ...]]
) -> set[tuple[str, ...]]:
    """Which of the ``parts`` the tokens hold outside every occurrence of the ``wholes``."""
    covered = [False] * len(toks)
    for whole in wholes:
        for i in positions(toks, whole):
            covered[i : i + len(whole)] = [True] * len(whole)
    return {
        part
        for part in parts
        if any(not any(covered[i : i + len(part)]) for i in positions(toks, part))
    }


def chain_names_in(mirror: Mirror, config: Config, context: str) -> list[str]:
    """The names in the context a chain would start from (the façade embeds the context's
    relation words apart only when there are some)."""
    if config.chain_weight <= 0 or config.entity_weight <= 0:
        return []
    found = [n for n in mirror.entities.find(context, lenient=True) if mirror.has_node(TAG + n)]
    return chain_names(mirror, config, not_the_kind(found, context), context)


def not_the_kind(names: list[str], context: str) -> list[str]:
    """The names but the one-word name of the kind of thing the context asks for: "which
    channel does the Capstan team use?" asks for a channel, though a store that writes
    "channel=#crows-nest" has a tag `channel`. Read as a name, the kind would start chains of
    its own and leave the relation words. (Capitalised too: "which Slack channel" asks for a
    channel, not about Slack; "which Billing engineer" is read the same way, and loses its
    Billing team: keeping a capitalised name before a noun lost three questions of the worlds
    others wrote, bench/README.md.)"""
    kind = asked_kind(context)
    return [n for n in names if not kind or " " in n or stem(n) != kind]


def chain_ranking(chains: list[Chain]) -> list[tuple[int, Chain]]:
    """The facts of the chains, best chain first and each chain's facts in order (the fact
    that leads to the answer ranks with it): slot and the best chain it is in."""
    ranking: dict[int, Chain] = {}
    for c in chains:
        for slot in c.slots:
            ranking.setdefault(slot, c)
    return list(ranking.items())


def chain_tree(mirror: Mirror, start: Step, c: Chain, upto: int) -> Tree:
    """The walk tree of a chain's first ``upto`` facts: fact, bridge, fact, ... from the start."""
    tree: Tree = {start.node: (start.score, None, None, -1)}
    parent = start.node
    for i, slot in enumerate(c.slots[:upto]):
        bridge = c.bridges[i]
        if bridge != parent:
            tree[bridge] = (c.score, parent, "HasTag", -1)
        node = mnode(mirror.ids[slot])
        tree[node] = (c.score, bridge, "HasTag", slot)
        parent = node
    return tree


def facts_among(mirror: Mirror, slots: np.ndarray, mask: np.ndarray, max_words: int) -> np.ndarray:
    """The slots a chain may step through: facts (``is_fact``) the filters leave (``mask``)."""
    keep = [bool(mask[s]) and is_fact(mirror, s, max_words) for s in slots.tolist()]
    return slots[np.array(keep, dtype=bool)] if len(slots) else slots


def is_fact(mirror: Mirror, slot: int, max_words: int) -> bool:
    """Whether a memory is a short statement (at most ``max_words`` words): not a passage,
    which names many things at once, nor an episode (a turn of a conversation, a log line),
    which records what happened rather than how things relate."""
    return mirror.kind[slot] != "episode" and len(mirror.content.get(slot, "").split()) <= max_words


def part_of(tag: str, other: str) -> bool:
    """Whether a tag's name is a proper part (whole words) of another's."""
    return tag != other and f" {tag[2:]} " in f" {other[2:]} "


def proper_parts(names: Iterable[tuple[str, ...]]) -> set[tuple[str, ...]]:
    """Which of the names (each split on single spaces, ``name.split(" ")``) are a proper part
    of another, as ``part_of`` tells: " a " is in " b " when a's words are a run of b's other
    than all of them. Each name's runs of the lengths some name has are looked up in a set:
    linear in the names for names of a few words, where asking ``part_of`` of every pair was
    quadratic (1,500 names in a question: 2.2 million calls)."""
    wanted = set(names)
    lengths = {len(t) for t in wanted}
    parts: set[tuple[str, ...]] = set()
    for other in wanted:
        for n in lengths:
            if n < len(other):
                parts.update(
                    run for i in range(len(other) - n + 1) if (run := other[i : i + n]) in wanted
                )
    return parts
