"""Deterministic conflict signals between two closely related statements.

Used when a new memory is very similar to an existing one, to decide whether the new one
contradicts (and may supersede) the old. No model involved: token alignment, negation
polarity and a list of correction cues.

Each signal says whether it is ``sure``: a sure signal means the new statement replaces the
old one about the same subject and attribute (the write path may supersede); an unsure one means
they disagree in part or may both hold (the write path links them with ``Contradicts``).

Policy choices:
    * Only short statements (one sentence, a few dozen words) are ever surely replaced. In a
      passage or a chat turn, a correction word ("moved to") is narrative, not a correction.
    * Negating one clause of a compound fact ("written in Kotlin and runs on Kubernetes" →
      "does not run on Kubernetes") is a partial contradiction: the rest may still hold.
    * A changed number on an event-like statement ("fixed a leak in release 262.1" → "… 456.3")
      is a second event, not a correction: no signal.
    * "Moved from X to Y" agrees with an old statement that already says Y.
    * Different speakers ("Nate: …" vs "Joanna: …") or different first-line titles are
      different subjects: never a duplicate, never a conflict.
    * Pure additions of detail ("limit is 100/min" vs "limit is 100/min per key") are not
      conflicts: nothing in the old statement was contradicted.
    * A difference in the leading subject slot ("Alice likes tea" vs "Bob likes tea") is a
      different subject, not a changed value.
    * Equal quantities written differently ("100 requests per minute" vs "100 req/min",
      "1,000" vs "1000", "30 seconds" vs "30s") are normalised to the same tokens.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from ..models import clip
from .memo import memo

__all__ = [
    "ConflictSignal",
    "detect_conflict",
    "has_correction_cue",
    "restates",
    "same_subject",
    "speaker",
]


@dataclass(frozen=True)
class ConflictSignal:
    """Why a new statement conflicts with an old one.

    Attributes:
        kind: ``"negation"``, ``"value"`` or ``"correction"``.
        detail: Human-readable explanation, e.g. ``"value changed: '100/min' → '200/min'"``.
        sure: True when the new statement replaces the old one; False when they disagree only
            in part or may both hold.
        old_span, new_span: For a ``"value"`` signal, where the changed value stands in the old
            and in the new text (character offsets), so the write path can read what the
            value is a value of (``slots.cardinality``).
    """

    kind: str
    detail: str
    sure: bool = True
    # Where, not what: two signals saying the same are equal wherever the values stand.
    old_span: tuple[int, int] | None = field(default=None, compare=False)
    new_span: tuple[int, int] | None = field(default=None, compare=False)


# "Correction:" and "Update:" say that something changed; "Note:" labels any note ("Cost note:
# egress from /mnt/proj was about $579 last month" corrects no other cost note).
_CUE_RE = re.compile(
    r"""(?ix)
    (?:\b(?:correction|update|updated|edit|erratum)\s*:)
  | \b(?:
        actually | in\ fact | it\ turns\ out | turns\ out | no\ longer | not\ anymore | anymore
      | no\ more | instead\ of | instead | rather\ than | from\ now\ on | going\ forward
      | changed\ (?:to|from) | switched\ (?:to|from) | moved\ (?:to|from) | migrated\ (?:to|from)
      | replaced\ (?:by|with) | renamed\ (?:to|from) | upgraded\ to | downgraded\ to
      | deprecated | superseded | obsolete | outdated | was\ wrong | is\ wrong | incorrect
    )\b
    # "now uses" only mid-sentence: a sentence-initial "Now is a good time" is not a correction.
  | (?<=[\w,]\s)now\ (?:uses?|using|is|are|runs?|requires?|prefers?|lives?|works?|has|have
                          |points?|defaults?)\b
    """
)

_NEGATED_AUX: dict[str, str] = {"can't": "can", "won't": "will", "shan't": "shall"}
_TOKEN_RE = re.compile(r"\d+(?:[.,]\d+)*|[a-z_][\w+#]*(?:[.\-][\w+#]+)*(?:['’][a-z]{1,2})?|%")
_THOUSANDS_RE = re.compile(r"^\d{1,3}(?:,\d{3})+$")
_VERSION_RE = re.compile(r"^v(\d+(?:\.\d+)*)$")
_NUMERIC_RE = re.compile(r"^\d+(?:\.\d+)*$")
_ALPHA_RE = re.compile(r"^[a-z]+$")

_NEGATORS = frozenset({"not", "no", "never", "nor", "neither", "without", "avoid", "cannot"})
# Antonyms map onto the positive form plus one negation, so "disabled" == "not enabled".
_ANTONYMS: dict[str, str] = {
    "disabled": "enabled",
    "disable": "enable",
    "disables": "enables",
    "unsupported": "supported",
    "forbidden": "allowed",
    "disallowed": "allowed",
    "prohibited": "allowed",
    "disallow": "allow",
    "deny": "allow",
    "denied": "allowed",
    "unavailable": "available",
    "unable": "able",
    "invalid": "valid",
    "incorrect": "correct",
    "false": "true",
    "off": "on",
    "inactive": "active",
    "optional": "required",
    "unsafe": "safe",
    "insecure": "secure",
    "dislikes": "likes",
    "dislike": "like",
    "hates": "likes",
    "hate": "like",
}
# "avoid X" means "do not use X".
_IMPLIED: dict[str, str] = {"avoid": "use", "cannot": "can"}

SYNONYMS: dict[str, str] = {
    "requests": "req",
    "request": "req",
    "reqs": "req",
    "minute": "min",
    "minutes": "min",
    "mins": "min",
    "seconds": "sec",
    "secs": "sec",
    "s": "sec",
    "hours": "hour",
    "hrs": "hour",
    "hr": "hour",
    "h": "hour",
    "milliseconds": "ms",
    "millisecond": "ms",
    "days": "day",
    "d": "day",
    "gigabytes": "gb",
    "gigabyte": "gb",
    "megabytes": "mb",
    "megabyte": "mb",
    "kilobytes": "kb",
    "kilobyte": "kb",
    "percent": "%",
    "pct": "%",
    "db": "database",
    "repo": "repository",
    "repos": "repository",
    "config": "configuration",
    "auth": "authentication",
    "env": "environment",
    "docs": "documentation",
    "doc": "documentation",
    "app": "application",
    "k8s": "kubernetes",
    "postgres": "postgresql",
    "js": "javascript",
    "ts": "typescript",
    "approx": "about",
    "approximately": "about",
    "around": "about",
    "roughly": "about",
}
_NUMBER_WORDS_TEXT = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
)
NUMBER_WORDS: dict[str, str] = {w: str(i) for i, w in enumerate(_NUMBER_WORDS_TEXT.split())}


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_STOPWORDS = _words(
    """a an the this that these those is are was were be been being am do does did done
    has have had having will would shall should can could may might must of in on at to for
    from by with as into onto over under per via and or but if then than so such it its it's
    we our us you your they their them i me my he she his her there here which who whom whose
    what when where why how all any each every some both either also just only very really
    now currently actually still always usually generally typically please note that's
    be also too again already yet"""
)


@dataclass(frozen=True)
class Token:
    norm: str
    start: int
    end: int
    is_content: bool


def has_correction_cue(text: str) -> str | None:
    """Return the first correction cue in ``text`` (lowercased), or None.

    Cues include "actually", "no longer", "now uses", "instead of", "not anymore",
    "changed to", "switched to", "moved to", "correction:", "update:", "deprecated".
    """
    m = _CUE_RE.search(unicodedata.normalize("NFKC", text))
    return _cue(m) if m else None


def correction_cues(text: str) -> set[str]:
    """Every correction cue in ``text`` (lowercased): ``has_correction_cue`` gives the first."""
    return {_cue(m) for m in _CUE_RE.finditer(unicodedata.normalize("NFKC", text))}


def _cue(m: re.Match[str]) -> str:
    return " ".join(m.group(0).lower().split())


def crude_stem(word: str) -> str:
    # Crude suffix stripping, used only to compare two texts with each other (not lexical.stem,
    # the Snowball stemmer of the BM25 index: the conflict rules were tuned on this one).
    if not _ALPHA_RE.match(word) or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("ing") and len(word) > 5:
        word = word[:-3]
    elif (word.endswith("ed") or word.endswith("es")) and len(word) > 4:
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def _normalize_token(raw: str) -> str:
    if _THOUSANDS_RE.match(raw):
        return raw.replace(",", "")
    if (m := _VERSION_RE.match(raw)) is not None:
        return m.group(1)
    raw = NUMBER_WORDS.get(raw, raw)
    raw = SYNONYMS.get(raw, raw)
    return crude_stem(raw)


def _lower_with_offsets(text: str) -> str:
    # Lower-casing can change length for a few exotic characters; offsets must stay valid.
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text


# Negators that negate nothing: "no matter what", "not only … but", "no problem".
_IDIOM_RE = re.compile(
    r"\b(?:no\s+(?:matter|doubt|problem|wonder|worries|idea)|not\s+(?:only|just)|never\s+mind)\b"
)


# Planning a batch compares each new memory with its nearest stored ones, so the same stored
# texts are tokenised again and again (half the planner's time at 10k memories, uncached).
# Kept within a budget of weight (characters, 16 a token: a token object is ~150 bytes), not
# a count of texts: a store's memories run to 20,000 characters each, and 8,192 of them with
# their tokens were gigabytes.
@memo(budget=1_000_000, item_max=40_000, weigh=lambda got: 16 * len(got[0]))
def statement_tokens(text: str) -> tuple[tuple[Token, ...], int]:
    """Return (tokens without negators, number of negations)."""
    text = unicodedata.normalize("NFKC", text)
    lowered = _lower_with_offsets(text)
    idioms = {m.start() for m in _IDIOM_RE.finditer(lowered.lower())}
    negations = 0
    tokens: list[Token] = []
    for m in _TOKEN_RE.finditer(lowered):
        raw = m.group(0).replace("’", "'")
        if m.start() in idioms:
            continue
        if raw.endswith("n't"):
            negations += 1
            raw = _NEGATED_AUX.get(raw, raw[:-3])
        elif "'" in raw:
            raw = raw.split("'", 1)[0]  # possessive / contraction tail: "alice's", "it's"
        if raw in _NEGATORS:
            negations += 1
            if raw in _IMPLIED:
                implied = _IMPLIED[raw]
                tokens.append(Token(implied, m.start(), m.end(), implied not in _STOPWORDS))
            continue
        if raw in _ANTONYMS:
            negations += 1
            raw = _ANTONYMS[raw]
        if raw == "per":
            continue
        norm = _normalize_token(raw)
        tokens.append(
            Token(norm, m.start(), m.end(), raw not in _STOPWORDS and norm not in _STOPWORDS)
        )
    return tuple(tokens), negations


def _content(tokens: Sequence[Token]) -> list[Token]:
    return [t for t in tokens if t.is_content]


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def _overlap(a: set[str], b: set[str]) -> float:
    # Overlap relative to the smaller side: a short correction of a long statement still counts.
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


# Characters that stay attached to a changed value when it is shown: "100/min", "3.11", "50%".
_ATTACHED = frozenset("/%.-_+#:")


def _chunk(text: str, toks: Sequence[Token]) -> str:
    """The original text of the differing tokens, with units glued to them ("100/min")."""
    start, end = toks[0].start, toks[-1].end
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in _ATTACHED - {"."}):
        start -= 1
    while end < len(text) and (text[end].isalnum() or text[end] in _ATTACHED):
        end += 1
    return " ".join(text[start:end].split()).strip(".,;:-_ ")


def _quote(value: str) -> str:
    return "'" + value.replace("'", "’") + "'"


_CHOICE_VERBS = (
    "prefer", "use", "like", "love", "want", "need", "require", "choos", "chose", "pick",
    "favo", "switch", "default", "set", "enabl", "disabl",
)  # fmt: skip


# A token that names a thing: hyphenated, underscored, dotted or slashed identifiers.
NAME_RE = re.compile(r"[a-z][-_./][a-z]")


def _is_value(tok: Token) -> bool:
    return bool(_NUMERIC_RE.match(tok.norm)) or any(c.isdigit() for c in tok.norm)


@dataclass(frozen=True)
class _Change:
    detail: str
    ratio: float  # share of content tokens the two statements align on
    cover: float  # share of the shorter statement's content tokens aligned with the other
    dropped: int  # content tokens of the old statement the new one does not restate
    old_span: tuple[int, int]  # where the changed value stands in the old text
    new_span: tuple[int, int]


def _value_change(
    new: str, old: str, new_toks: Sequence[Token], old_toks: Sequence[Token]
) -> _Change | None:
    a, b = _content(old_toks), _content(new_toks)
    if not a or not b:
        return None
    matcher = SequenceMatcher(a=[t.norm for t in a], b=[t.norm for t in b], autojunk=False)
    matched = sum(block.size for block in matcher.get_matching_blocks())
    ratio = matched / max(len(a), len(b))
    cover = matched / min(len(a), len(b))
    changes: list[tuple[list[Token], list[Token]]] = []
    extra = dropped = 0  # content tokens only on one side (added or dropped detail)
    at_end = False
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op in ("insert", "delete"):
            extra += (i2 - i1) + (j2 - j1)
            dropped += i2 - i1
        if op != "replace":
            continue
        if i2 - i1 > 3 or j2 - j1 > 3:
            return None  # A large rewrite is a reformulation, not a changed value.
        if i1 == 0 or j1 == 0:
            return None  # Leading slot differs: a different subject, not a different value.
        changes.append((a[i1:i2], b[j1:j2]))
        # Where values go: at the end, or right after a verb of choice ("prefers X in ...").
        at_end = i2 == len(a) and j2 == len(b)
        at_end = at_end or (i1 > 0 and a[i1 - 1].norm.startswith(_CHOICE_VERBS))
    if len(changes) != 1:  # two changed slots usually mean another subject ("service 3, port 8003")
        return None
    numeric = all(any(map(_is_value, o)) and any(map(_is_value, n)) for o, n in changes)
    if numeric:
        # A new statement may restate one part of a longer old one ("TTL is 5 minutes" vs
        # "TTL is 10 minutes and max size is 1 GB"): then it need not align on half of both.
        if matched < 1 or (ratio < 0.5 and cover < 0.6):
            return None
        old_slot, new_slot = changes[0]
        names = [t for t in old_slot + new_slot if not _is_value(t) and NAME_RE.search(t.norm)]
        if names:
            # "ingest-worker is 204" → "auth-worker is 690": the thing changed with the number,
            # so this is another subject, not a new value for the same one.
            return None
    elif matched < 2 or ratio < 0.6 or extra:
        # A word swap alongside added/dropped words is more likely a rewording.
        return None
    elif any(len(o) > 1 or len(n) > 1 for o, n in changes) and any(
        NAME_RE.search(t.norm) for o, n in changes for t in o + n
    ):
        return None  # a named thing changed along with the words around it: another subject
    elif not at_end:
        # A swapped word mid-sentence is more often another subject ("migrations for
        # profile-worker run on Mondays" vs "... for billing-worker ...") than a new value;
        # values sit at the end ("the default branch is main" → "... is master").
        return None
    detail = "value changed: " + "; ".join(
        f"{_quote(_chunk(old, o))} → {_quote(_chunk(new, n))}" for o, n in changes
    )
    ((o, n),) = changes
    return _Change(detail, ratio, cover, dropped, (o[0].start, o[-1].end), (n[0].start, n[-1].end))


# --------------------------------------------------------------------------- subjects

# "Name: text" opens a chat turn; these labels open a note instead.
_LABELS = _words(
    """correction update updated note edit erratum decision warning important todo fyi summary
    context reminder tip rule policy question answer q a fact preference example status
    action owner result fix"""
)
# The reader's rules (these bounds, the cue phrases, the agreement shares below) are not Config
# fields: they are tuned together on bench/supersede.py's labelled set, as one reading of
# English, while Config holds the similarity thresholds a deployment may tune.
_SPEAKER_RE = re.compile(r"^\s*([A-Z][\w'’.-]*(?:\s[A-Z][\w'’.-]*){0,3})\s?:\s+\S")
_MAX_SUBJECT_LINE_WORDS = 12


def speaker(text: str) -> str | None:
    """The speaker of a chat turn written ``"Name: text"``, case-folded; None for other texts."""
    m = _SPEAKER_RE.match(text)
    if m is None or m.group(1).casefold() in _LABELS:
        return None
    return m.group(1).casefold()


def _subject_line(text: str) -> str | None:
    # A short first line above more text names what the text is about ("Allan Gilmour Sr.").
    first, sep, rest = text.strip().partition("\n")
    if not sep or not rest.strip() or len(first.split()) > _MAX_SUBJECT_LINE_WORDS:
        return None
    return " ".join(first.casefold().split())


def same_subject(new: str, old: str) -> bool:
    """False when the two texts are surely about different subjects.

    Different speakers of chat turns, or different title lines ("Allan Gilmour Sr." vs
    "Allan Gilmour"), are different subjects however alike the rest is.
    """
    a, b = speaker(new), speaker(old)
    if a is not None and b is not None and a != b:
        return False
    a, b = _subject_line(new), _subject_line(old)
    return a is None or b is None or a == b


def _body(text: str) -> str:
    return text.strip().partition("\n")[2] if _subject_line(text) else text


_SENTENCE_END_RE = re.compile(r"[.!?…]+[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
# A statement can be surely replaced; a passage or a chat turn holds too much for that.
MAX_STATEMENT_TOKENS = 30


def is_statement(text: str, toks: Sequence[Token]) -> bool:
    body = _body(text).strip()
    if "\n" in body or len(_SENTENCE_END_RE.findall(body)) > 0:
        return False
    return len(_content(toks)) <= MAX_STATEMENT_TOKENS


# --------------------------------------------------------------------------- events

_IRREGULAR_PAST = _words(
    """went came ran met saw found made took gave got bought sold built broke wrote spoke
    began sent left lost won paid brought caught fought taught thought told held kept
    led"""
)
_NOT_PAST = _words(
    """hundred indeed speed seed feed embed need exceed proceed succeed bleed breed shed bed
    red bred based located called named preferred favoured favored required expected allowed
    supported recommended limited deprecated scheduled used needed"""
)
_COPULAS = _words("is are am be been being 's remains remain stays stay get gets")
_DETERMINERS = _words("the a an this that our its their my your his her each every")
_WHEN_RE = re.compile(
    r"\b(?:yesterday|today|tonight|last\s+(?:week|night|month|year|time)|this\s+morning|"
    r"\d+\s+(?:days?|weeks?|months?|years?)\s+ago|\d{4}-\d{2}-\d{2})\b"
)


def _is_event(text: str) -> bool:
    """True for statements about something that happened (a second one may happen too)."""
    lowered = text.lower()
    if _WHEN_RE.search(lowered):
        return True
    ws = re.findall(r"[a-z']+", lowered)
    for i, w in enumerate(ws):
        past = w in _IRREGULAR_PAST or (len(w) > 4 and w.endswith("ed") and w not in _NOT_PAST)
        if not past:
            continue
        before = ws[i - 1] if i else ""
        if before in _COPULAS or before in _DETERMINERS:
            continue  # "is written in Kotlin", "the managed database": a state, not an event
        return True
    return False


# --------------------------------------------------------------------------- corrections

_PHRASE_END = r"(?=[.,;:!?()]|\s+(?:and|but|because|since|after|when|so)\b|$)"
_FROM_TO_RE = re.compile(r"\bfrom\s+(.+?)\s+(?:to|into)\s+(.+?)" + _PHRASE_END, re.I)
_TO_RE = re.compile(
    r"\b(?:changed|switched|moved|migrated|renamed|upgraded|downgraded)\s+(?:to|into)\s+(.+?)"
    + _PHRASE_END
    + r"|\breplaced\s+(?:by|with)\s+(.+?)"
    + _PHRASE_END
    + r"|\bnow\s+(?:uses?|using|is|are|runs?|requires?|prefers?|lives?|works?|has|have|points?"
    r"|defaults?)\s+(?:on\s+|in\s+|at\s+|to\s+)?(.+?)" + _PHRASE_END,
    re.I,
)
_INSTEAD_RE = re.compile(r"\b(?:instead\s+of|rather\s+than)\s+(.+?)" + _PHRASE_END, re.I)


def _phrase_tokens(phrase: str | None) -> list[str]:
    if not phrase:
        return []
    return [t.norm for t in _content(statement_tokens(phrase)[0])]


def _correction(new: str) -> tuple[list[str], list[str]]:
    """The content words of what a correction says was replaced (from) and of what replaced
    it (to), in order: the first word of the replacement is its head ("Kafka events")."""
    if (m := _FROM_TO_RE.search(new)) is not None:
        return _phrase_tokens(m.group(1)), _phrase_tokens(m.group(2))
    if (m := _INSTEAD_RE.search(new)) is not None:
        return _phrase_tokens(m.group(1)), []
    if (m := _TO_RE.search(new)) is not None:
        return [], _phrase_tokens(next(g for g in m.groups() if g))
    return [], []


# Cues that declare the old thing void by themselves: nothing needs to replace it.
_INVALIDATING = frozenset(
    {
        "no longer", "not anymore", "anymore", "no more", "deprecated", "superseded",
        "obsolete", "outdated", "was wrong", "is wrong", "incorrect",
    }
)  # fmt: skip


def _cue_signal(
    new: str, old: str, new_content: set[str], old_content: set[str], statements: bool
) -> ConflictSignal | None:
    cue = has_correction_cue(new)
    if cue is None or _overlap(new_content, old_content) < 0.3:
        return None
    new_names = {t for t in new_content if NAME_RE.search(t)}
    old_names = {t for t in old_content if NAME_RE.search(t)}
    if new_names and old_names and not new_names & old_names:
        return None  # a correction about another named thing
    if not statements:
        return None  # in a passage or a chat turn a cue word is narrative, not a correction
    if not old_content - new_content and cue not in _INVALIDATING:
        return None  # the new statement only adds to the old one
    replaced, replacement = _correction(new)
    if replacement[:1] and replacement[0] in old_content and not set(replaced) & old_content:
        return None  # "moved from REST polling to Kafka" agrees with "publishes to Kafka"
    if replaced and not set(replaced) & old_content and not replacement:
        return None  # "use ruff instead of flake8" says nothing against "use black"
    sure = not replaced or bool(set(replaced) & old_content)
    return ConflictSignal("correction", f"correction cue: {cue!r}", sure=sure)


# --------------------------------------------------------------------------- verdicts

# Texts that are not short statements conflict only when nearly everything else agrees.
_PASSAGE_AGREEMENT = 0.85


def detect_conflict(new: str, old: str) -> ConflictSignal | None:
    """Return a conflict signal if ``new`` contradicts ``old``, else None.

    Checks, in order: negation flip, value change in an aligned slot, correction cue in
    ``new`` with substantial shared content. Texts about different subjects (see
    ``same_subject``) never conflict.

    Args:
        new: The incoming statement.
        old: The existing, very similar statement.
    """
    if not same_subject(new, old):
        return None
    new_toks, new_neg = statement_tokens(new)
    old_toks, old_neg = statement_tokens(old)
    new_content = {t.norm for t in _content(new_toks)}
    old_content = {t.norm for t in _content(old_toks)}
    statements = is_statement(new, new_toks) and is_statement(old, old_toks)
    agreement = _jaccard(new_content, old_content)

    if new_neg % 2 != old_neg % 2:
        flip = f"negation flip: {_quote(clip(old, 60))} → {_quote(clip(new, 60))}"
        dropped = old_content - new_content
        if statements and agreement >= 0.6 and not dropped:
            return ConflictSignal("negation", flip)
        partial = len(new_content) >= 3 and len(new_content - old_content) <= 1
        if statements and (agreement >= 0.6 or partial):
            # One clause of a compound fact negated: the rest of the old one may still hold.
            return ConflictSignal("negation", "partial " + flip, sure=False)
        if agreement >= _PASSAGE_AGREEMENT:
            return ConflictSignal("negation", flip, sure=False)

    change = _value_change(new, old, new_toks, old_toks)
    if change is not None:
        if statements and _is_event(new) and _is_event(old):
            return None  # "fixed a leak in release 262.1" → "… 456.3": another event
        if statements:
            # The new statement leaves out part of the old one, which may still hold.
            return ConflictSignal(
                "value", change.detail, not change.dropped, change.old_span, change.new_span
            )
        if change.cover >= _PASSAGE_AGREEMENT:
            return ConflictSignal("value", change.detail, False, change.old_span, change.new_span)
        return None

    if statements and new_content == old_content and not same_marks(new, old):
        # The same words with another sign, comparison, currency, order, path or "only"
        # ("-5 C" / "5 C"): another value, which the tokens cannot point at (no spans), so the
        # write path reads it as disputed unless the new one says it changed.
        return ConflictSignal(
            "value", f"value changed: {_quote(clip(old, 60))} → {_quote(clip(new, 60))}"
        )

    return _cue_signal(new, old, new_content, old_content, statements)


def restates(new: str, old: str) -> bool:
    """True when ``new`` says what ``old`` says, in other words at most.

    A duplicate needs the same subject, the same polarity, the same content words (after
    normalising units, numbers, synonyms and plurals): any changed word, number or name makes
    a new memory ("release 262.1" vs "release 456.3"; "Nate: …" vs "Joanna: …"), and the same
    ``marks``, which the words leave out ("-5 C" vs "5 C").
    """
    if not same_subject(new, old):
        return False
    new_toks, new_neg = statement_tokens(new)
    old_toks, old_neg = statement_tokens(old)
    if new_neg % 2 != old_neg % 2:
        return False
    if {t.norm for t in _content(new_toks)} != {t.norm for t in _content(old_toks)}:
        return False
    return same_marks(new, old)


# A minus that belongs to a number, not a hyphen or a range: at the start, after a space, an
# opening bracket, "=", ":" or ",". ("+5" says what "5" says.)
_SIGNED_RE = re.compile(r"(?:^|(?<=[\s(\[=:,$€£¥₹]))-([$€£¥₹]?\d+(?:[.,]\d+)*)")
# A comparison of a number ("Python >= 3.10"), not an arrow ("a -> b"), a quote ("> text") or
# brackets round an address ("<alice@example.com>").
_COMPARISON_RE = re.compile(r"(?<![<>=!-])(<=|>=|==|!=|<|>)(?![<>=-])(?=\s?[\d.$€£])")
_CURRENCY = frozenset("$€£¥₹₩₽₺₪₫฿₴₦₱¢")
# Numbers written together, whose order is what they say: a ratio, a score, a range, a date.
_JOINED_RE = re.compile(r"\d+(?:[.,]\d+)*(?:\s?[:/x×-]\s?\d+(?:[.,]\d+)*)+")
# "02:00" is a time of day, which the words' own reading matches with "2am".
_TIME_OF_DAY_RE = re.compile(r"\d{1,2}:\d{2}(?::\d{2})?")
# A file path or a URL's path as written (case kept): its parts are words to the tokens
# ("logs" and "log" alike).
_PATH_RE = re.compile(r"(?<![\w/.])(?:~|\.{1,2})?/[^\s,;'\"`()\[\]{}<>]+")
_ONLY_RE = re.compile(r"\b(?:only|just)\b")
# Dashes, minus signs and fraction slashes as typed.
_TYPED = str.maketrans({"\u2212": "-", "\u2010": "-", "\u2011": "-", "\u2012": "-",
                        "\u2013": "-", "\u2014": "-", "\u2044": "/", "\u2215": "/",
                        "≥": ">=", "≤": "<=", "≠": "!="})  # fmt: skip


@dataclass(frozen=True)
class Marks:
    """What a statement's content words leave out but which changes what it says (``marks``)."""

    signed: tuple[str, ...]
    comparisons: tuple[str, ...]
    currencies: tuple[str, ...]
    joined: tuple[str, ...]
    paths: tuple[str, ...]
    only: int

    def same(self, other: Marks) -> bool:
        """Whether two statements with the same words say the same. Numbers written together
        and paths count only where both write some ("102-99" / "102 to 99", "/srv/docs" /
        "srv docs" say the same in other words); signs, comparisons, currencies and "only"
        count however written ("-5 C" / "5 C")."""
        return (
            self.signed == other.signed
            and self.comparisons == other.comparisons
            and self.currencies == other.currencies
            and (self.joined == other.joined or not self.joined or not other.joined)
            and (self.paths == other.paths or not self.paths or not other.paths)
            and self.only == other.only
        )


def marks(text: str) -> Marks:
    """The ``Marks`` of a statement: numbers with a minus ("-5 C" / "5 C"), comparisons of
    numbers ("Python >= 3.10" / "<= 3.10"), currency symbols ("$5" / "€5"), numbers written
    together in their order ("3:1" / "1:3", "10-2" / "2-10"; "80/20" is "80:20", "2024/01/05"
    is "2024-01-05"), paths as written, case and all ("/var/log/app" / "/var/logs/app"; a
    trailing "/" aside) and "only" or "just" ("Only admins can delete projects"). Each sorted:
    where they stand is the words' business. (An attack on the write path found each of these
    read as a duplicate of the other, so the correction was merged into the old memory; a
    review found the first reading too strict: arrows, quotes, "≥" and "80/20" / "80:20".)"""
    text = unicodedata.normalize("NFKC", text).translate(_TYPED)
    folded = text.casefold()
    joined = []
    for m in _JOINED_RE.findall(folded):
        j = re.sub(r"\s", "", m)
        if not _TIME_OF_DAY_RE.fullmatch(j):
            j = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", j)  # thousands
            joined.append(re.sub(r"[:/x×-]", "-", j))
    paths = [m.rstrip(".:,;!?`'\"").rstrip("/") or "/" for m in _PATH_RE.findall(text)]
    return Marks(
        signed=tuple(sorted("-" + n.replace(",", "") for n in _SIGNED_RE.findall(folded))),
        comparisons=tuple(sorted(_COMPARISON_RE.findall(folded))),
        currencies=tuple(sorted(c for c in folded if c in _CURRENCY)),
        joined=tuple(sorted(joined)),
        paths=tuple(sorted(paths)),
        only=len(_ONLY_RE.findall(folded)),
    )


def same_marks(a: str, b: str) -> bool:
    """Whether two statements' ``marks`` say the same (``Marks.same``)."""
    return marks(a).same(marks(b))
