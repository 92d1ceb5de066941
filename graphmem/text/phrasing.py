"""Where the relation words of a short statement stand relative to the names it mentions.

Chains (``chains.chain``) judge a fact by the question's relation words. What a bag of words
misses, read here from word order: a relation word inside a name is no relation word
("forecast-worker calls catalog-worker" does not say what anyone "works" at); the kind of thing
a question asks for ("which team ..."); how far a relation word stands from a name ("the
upstream of X"); the kind word a store writes next to a name ("the pg-push datastore").

(Which side of a name a relation word stands on, with the passive read back, was dropped:
penalising facts that state the relation the other way round lost on the held-out phrasings;
bench/README.md, ablation.)
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Container
from dataclasses import dataclass

from .entities import TYPE_WORDS, positions, words
from .lexical import STOPWORDS, fold, stem
from .memo import memo

_TOKEN = re.compile(r"[^\W_]+(?:['’.][^\W_]+)*")
_POSSESSIVE = re.compile(r"['’]s\b")
TYPE_STEMS = frozenset(stem(w) for w in TYPE_WORDS)


@dataclass(frozen=True)
class Layout:
    """A text's word tokens (as ``entities.words`` spells them) and their stems."""

    words: tuple[str, ...]
    stems: tuple[str, ...]


# Layouts are kept for the texts chains read again and again (short facts: a few hundred
# characters, ~1 KB each), within ~25 MB whatever callers send: a text longer than
# LAYOUT_CHARS is laid out afresh each time.
LAYOUT_CHARS = 2_000


@memo(budget=1_000_000, item_max=LAYOUT_CHARS)
def layout(text: str) -> Layout:
    toks: list[str] = []
    for tok in _TOKEN.findall(_POSSESSIVE.sub("", fold(text).casefold())):
        toks.extend(words(tok))
    stems = tuple(w if w.isdigit() else stem(w) for w in toks)
    return Layout(tuple(toks), stems)


def variants(term: str) -> frozenset[str]:
    """A relation term and its agent noun or back ("own" and "owner"), as ``term_scores``."""
    out = {term, term + "er"}
    if term.endswith("er") and len(term) > 4:
        out.add(term[:-2])
    return frozenset(out)


def name_positions(lay: Layout, name: str) -> list[int]:
    """Where the words of ``name`` start in the text."""
    return positions(lay.words, words(name))


def outside(lay: Layout, names: tuple[str, ...]) -> list[bool]:
    """Which words of the text are not part of one of ``names``, nor the type word a name is
    written with ("the ledger service")."""
    free = [True] * len(lay.words)
    for name in names:
        n = len(words(name))
        for i in name_positions(lay, name):
            end = i + n + (i + n < len(lay.words) and lay.words[i + n] in TYPE_WORDS)
            free[i:end] = [False] * (end - i)
    return free


def terms_held(text: str, terms: list[frozenset[str]], names: tuple[str, ...] = ()) -> list[bool]:
    """For each relation term (its variants): whether the text holds it outside ``names``."""
    lay = layout(text)
    free = outside(lay, names) if names else [True] * len(lay.words)
    return [
        any(
            free[i] and s in forms and lay.words[i] not in STOPWORDS
            for i, s in enumerate(lay.stems)
        )
        for forms in terms
    ]


_ASKING = frozenset({"which", "what"})
_ASKING_WORD = re.compile(r"\b(?:which|what)\b", re.IGNORECASE)


def asked_kind(question: str) -> str:
    """The stem of the word that says what kind of thing a question asks for: the word after
    its first "which" or "what" that a content word follows ("which team is ...": team; the
    type word after it, "which storage service": service), or "" ("who owns ..."; "what
    depends on X", "what sits directly upstream of X": a verb, as its form and the preposition
    or adverb after it show)."""
    found = _asking_phrase(question)
    if found is None:
        return ""
    lay = found[1]
    word = lay.words[1]
    after = lay.words[2] if len(lay.words) > 2 else ""
    # "what depends on X", "what sits directly upstream of X": a verb in the third
    # person ("which team in Berlin", "what region of AWS" ask for a kind).
    verb = lay.words[0] == "what" and word.endswith("s") and not word.endswith("ss")
    if verb and (after in PREPOSITIONS or adverb(after)):
        return ""
    if after in TYPE_WORDS:
        # "which storage service", "what export service relies on": the type word is
        # the kind; the word before it says which (or is a name).
        return lay.stems[2]
    return lay.stems[1]


def _weigh_phrase(found: tuple[str, Layout] | None) -> int:
    return 0 if found is None else 4 * len(found[0])  # the text and its layout's words


# Read twice per question (the kind, and whether it is the verb's object): kept for questions
# up to 20,000 characters, within ~6 MB.
@memo(budget=250_000, item_max=20_000, weigh=_weigh_phrase)
def _asking_phrase(question: str) -> tuple[str, Layout] | None:
    """The question's first "which" or "what" that a content word follows (an asking verb's
    or "what is"'s "the" counts as one: "tell me the team that ..."): the text from it on
    (folded, at most ``_PHRASE_CHARS``) and its layout. Only a few words from each "which"
    or "what" are read, each once: a long context (a whole conversation) is not laid out for
    the few words that say the kind."""
    folded = fold(question).casefold()
    for asking in _ASKING_WORD.finditer(folded):
        text = folded[asking.start() : asking.start() + _PHRASE_CHARS]
        lay = layout(text)
        if len(lay.words) >= 2 and lay.words[0] in _ASKING and lay.words[1] not in STOPWORDS:
            return text, lay
    # None: "Tell me the team that ...", "what is the team of ...": the thing asked for is
    # named after "the" as after "which" ("which team ..."). Only then: "It cost us the
    # weekend. Which team owns X?" asks for a team.
    named = _ASKING_THE.search(folded)
    if named is None:
        return None
    text = ("which " + folded[named.end() :])[:_PHRASE_CHARS]
    lay = layout(text)
    if len(lay.words) >= 2 and lay.words[1] not in STOPWORDS:
        return text, lay
    return None


# An asking verb with the asker as its object ("tell me", "show us": ``asking_at``), or "what
# is", then "the".
_ASKING_THE = re.compile(r"\b(?:\w+ (?:me|us)|what is|what['’]s|which is) the\s")


_PHRASE_CHARS = 120
# The asking phrase, one to four words, then do-support: "which Slack channel does", "what
# data store did" ("do-api" is a name, not the verb).
_KIND_THEN_DO = re.compile(r"(?:which|what)((?:\s+[\w#@.'-]+){1,4}?)\s+(?:do|does|did)(?![\w-])")
# Words that may join the asking phrase's words: "what chat channel or list does".
_JOINING = frozenset({"or", "and"})


def kind_is_object(question: str) -> bool:
    """Whether the kind a question asks for (``asked_kind``) is the object of its verb:
    "which channel does Data Platform use", "what store did billing move to". Do-support right
    after the asking phrase says the phrase is what the verb acts on, so the verb's own fact
    names the thing asked for (one fact, not the verb's fact and then another to reach the
    kind); "which team is X's owner in" has no such verb, nor "which team is Ana, who does
    payroll, on" (a clause between). Grammar, not a word list of verbs."""
    found = _asking_phrase(question)
    if found is None:
        return False
    said = _KIND_THEN_DO.match(found[0])
    if said is None:
        return False
    return all(w not in STOPWORDS or w in _JOINING for w in said.group(1).split())


def adverb(word: str) -> bool:
    """Whether a word is an adverb by its form ("directly", "currently"): it says how, not
    which relation."""
    # Not the nouns and verbs that end so: "supply", "assembly", "anomaly", "family".
    return len(word) > 5 and word.endswith("ly") and not word.endswith(_NOT_ADVERBS)


_NOT_ADVERBS = ("ply", "bly", "aly", "mily")


_ASKERS = frozenset({"me", "us"})


def asking_at(ws: tuple[str, ...] | list[str]) -> set[int]:
    """The places of the words a question asks with, among its words (``entities.words``):
    a verb with the asker as its object ("tell me", "show us", "remind me") and the asker. They
    ask; they name no relation. Grammar, not a word list of verbs."""
    verbs = {i for i in range(len(ws) - 1) if ws[i + 1] in _ASKERS}
    return verbs | {i + 1 for i in verbs}


_POSSESSIVE_PRONOUNS = frozenset({"its", "their", "his", "her"})


def objects_said(question: str, relations: list[frozenset[str]]) -> frozenset[str]:
    """The stems of the relation words a question says as the object of another one, through
    a possessive pronoun ("store its data", "keep their records"): the pair names one
    relation, what the entity does with its own things. Grammar, not a word list."""
    lay = layout(question)
    said = frozenset().union(*relations) if relations else frozenset()
    return frozenset(
        lay.stems[i]
        for i in range(2, len(lay.words))
        if lay.words[i - 1] in _POSSESSIVE_PRONOUNS and lay.stems[i - 2] in said
    )


# Prepositions: a closed class of grammar words, not a list of relations. A name after one is
# the object of the word before it ("the owner of X", "responsible for X", "relies on X").
PREPOSITIONS = frozenset(
    "of for on after about to with by from in at behind into onto upon over under within via"  # noqa: SIM905
    " near around toward towards without".split()
)


# Pronouns that open a relative or interrogative clause (closed class, like the prepositions).
CLAUSE_OPENERS = frozenset(["that", "which", "who", "whom", "whose", "what", "where", "when"])


def possessives(text: str) -> tuple[bool, ...]:
    """Per word of ``entities.words(text)``: whether the text writes it with a possessive
    ("X's owner"). All False where the two readings disagree on the words."""
    flags: list[bool] = []
    for tok in _TOKEN.findall(fold(text).casefold()):
        bare = _POSSESSIVE.sub("", tok)
        n = len(words(bare))
        flags.extend([False] * (n - 1) + [bare != tok] if n else [])
    return tuple(flags) if len(flags) == len(words(text)) else (False,) * len(words(text))


def relation_of(seq: list[str | None], lo: int, hi: int, possessive: bool) -> int:
    """In a sequence of words with the names as None, the place of the content word that
    states the relation the phrase ``seq[lo:hi + 1]`` (a name and the words it took in) is in,
    or -1: the word after a possessive ("X's owner"); the word before when a preposition stands
    between ("the owner of X"), unless a word that opens a clause stands nearer ("the owner of
    what X relies on"), or when nothing does ("the person who owns X"); else the word after
    ("the database that X uses", "what does X call"); else the one before. A type word right
    before a name is part of how it is written ("the service X calls")."""
    right = hi + 1
    while right < len(seq) and seq[right] is not None and seq[right] in STOPWORDS:
        right += 1
    after = right if right < len(seq) and seq[right] is not None else -1
    left = lo - 1
    while left >= 0 and seq[left] in TYPE_WORDS:
        left -= 1
    gap = preposition = clause = False
    while left >= 0 and seq[left] is not None and seq[left] in STOPWORDS:
        clause = clause or seq[left] in CLAUSE_OPENERS
        gap, preposition = True, preposition or (seq[left] in PREPOSITIONS and not clause)
        left -= 1
    before = left if left >= 0 and seq[left] is not None else -1
    if possessive and after >= 0:
        return after
    if before >= 0 and (preposition or not gap):
        return before
    return after if after >= 0 else before


def distances(
    text: str, name: str, terms: list[frozenset[str]], lay: Layout | None = None
) -> list[int]:
    """For each relation term: how many content words (not stopwords) stand between its
    nearest occurrence and ``name`` in the text (``len(text)`` where either is missing).
    Each occurrence finds its nearest mention by bisection: a question that repeats a name
    thousands of times costs no more than its length times a logarithm. ``lay``: the text's
    ``layout``, when the caller has it (a long question is not kept by the cache)."""
    lay = layout(text) if lay is None else lay
    content = [i for i, w in enumerate(lay.words) if w not in STOPWORDS]
    n = len(words(name))
    # Each mention as the range of content words it covers (ranks into ``content``).
    spans = []
    for start in name_positions(lay, name):
        first, last = bisect_left(content, start), bisect_left(content, start + n) - 1
        if first <= last:
            spans.append((first, last))
    firsts = [first for first, _ in spans]
    # Where each stem stands among the content words, read once: each term then looks at its
    # own occurrences only (a question of thousands of words and dozens of terms costs its
    # length, not their product).
    ranks: dict[str, list[int]] = {}
    if spans:
        for r, i in enumerate(content):
            ranks.setdefault(lay.stems[i], []).append(r)
    out = []
    for forms in terms:
        best = len(text)
        for r in sorted({r for form in forms for r in ranks.get(form, ())}):
            k = bisect_right(firsts, r)
            if k:  # the nearest mention starting at or before it (it may be inside)
                best = min(best, max(0, r - spans[k - 1][1] - 1))
            if k < len(spans):  # the nearest mention after it
                best = min(best, spans[k][0] - r - 1)
        out.append(best)
    return out


# Punctuation that ends a phrase: a kind word on its other side is not written with the name
# ("the image_resizer service (Henrik runs it)" types image_resizer, not Henrik). A colon or a
# full stop ends one only before a space ("svc:payments"), a full stop only before a capital
# or a number ("the Acme Inc. team").
_PHRASE_BREAK = re.compile(r"[()\[\]{},;!?]|:(?:\s|$)|\.(?:\s+(?=[A-Z0-9])|$)|\s[-–—]+\s")


def beside(lay: Layout, name: str, accepts: Container[str], stems: bool = False) -> bool | None:
    """Whether the word right before or right after a mention of ``name`` is in ``accepts``
    (compared as its stem with ``stems``, else as written): None where the text does not
    mention the name."""
    at = name_positions(lay, name)
    if not at:
        return None
    said, n = lay.stems if stems else lay.words, len(words(name))
    return any((i > 0 and said[i - 1] in accepts) or (i + n < len(said) and said[i + n] in accepts)
               for i in at)  # fmt: skip


def typed_as(text: str, name: str, forms: frozenset[str]) -> bool:
    """Whether the text writes ``name`` with a kind word next to it, in the same phrase ("the
    pg-push datastore", "team Growth", "region eu-west-1"): how a store says what kind of
    thing a name is."""

    def typed_in(piece: str) -> bool | None:
        return beside(layout(piece), name, forms, stems=True)

    parts = [typed_in(part) for part in _PHRASE_BREAK.split(text)]
    if any(parts):
        return True
    # A name that holds a break itself ("Acme Inc.", "svc:payments") is read in the whole text.
    return all(p is None for p in parts) and bool(typed_in(text))
