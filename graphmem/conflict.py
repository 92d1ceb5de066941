"""Deterministic conflict signals between two closely related statements.

Used when a new memory is very similar to an existing one, to decide whether the new one
contradicts (and may supersede) the old. No model involved: token alignment, negation
polarity and a list of correction cues.

Policy choices:
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
from dataclasses import dataclass
from difflib import SequenceMatcher

__all__ = ["ConflictSignal", "detect_conflict", "has_correction_cue"]


@dataclass(frozen=True)
class ConflictSignal:
    """Why a new statement conflicts with an old one.

    Attributes:
        kind: ``"negation"``, ``"value"`` or ``"correction"``.
        detail: Human-readable explanation, e.g. ``"value changed: 100/min → 200/min"``.
    """

    kind: str
    detail: str


_CUE_RE = re.compile(
    r"""(?ix)
    (?:\b(?:correction|update|updated|edit|note|erratum)\s*:)
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

_SYNONYMS: dict[str, str] = {
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
_NUMBER_WORDS: dict[str, str] = {w: str(i) for i, w in enumerate(_NUMBER_WORDS_TEXT.split())}


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
class _Tok:
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
    return " ".join(m.group(0).lower().split()) if m else None


def _stem(word: str) -> str:
    # Crude suffix stripping, used only to compare two texts with each other.
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
    raw = _NUMBER_WORDS.get(raw, raw)
    raw = _SYNONYMS.get(raw, raw)
    return _stem(raw)


def _lower_with_offsets(text: str) -> str:
    # Lower-casing can change length for a few exotic characters; offsets must stay valid.
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text


def _tokenize(text: str) -> tuple[list[_Tok], int]:
    """Return (tokens without negators, number of negations)."""
    text = unicodedata.normalize("NFKC", text)
    negations = 0
    tokens: list[_Tok] = []
    for m in _TOKEN_RE.finditer(_lower_with_offsets(text)):
        raw = m.group(0).replace("’", "'")
        if raw.endswith("n't"):
            negations += 1
            raw = _NEGATED_AUX.get(raw, raw[:-3])
        elif "'" in raw:
            raw = raw.split("'", 1)[0]  # possessive / contraction tail: "alice's", "it's"
        if raw in _NEGATORS:
            negations += 1
            if raw in _IMPLIED:
                implied = _IMPLIED[raw]
                tokens.append(_Tok(implied, m.start(), m.end(), implied not in _STOPWORDS))
            continue
        if raw in _ANTONYMS:
            negations += 1
            raw = _ANTONYMS[raw]
        if raw == "per":
            continue
        norm = _normalize_token(raw)
        tokens.append(
            _Tok(norm, m.start(), m.end(), raw not in _STOPWORDS and norm not in _STOPWORDS)
        )
    return tokens, negations


def _content(tokens: list[_Tok]) -> list[_Tok]:
    return [t for t in tokens if t.is_content]


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def _overlap(a: set[str], b: set[str]) -> float:
    # Overlap relative to the smaller side: a short correction of a long statement still counts.
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def _snippet(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _chunk(text: str, toks: list[_Tok]) -> str:
    """Original text around the differing tokens, widened to whitespace boundaries."""
    start, end = toks[0].start, toks[-1].end
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while end < len(text) and not text[end].isspace():
        end += 1
    return text[start:end].strip(".,;:!?\"'()[]`")


_CHOICE_VERBS = (
    "prefer", "use", "like", "love", "want", "need", "require", "choos", "chose", "pick",
    "favo", "switch", "default", "set", "enabl", "disabl",
)  # fmt: skip


# A token that names a thing: hyphenated, underscored, dotted or slashed identifiers.
_NAME_RE = re.compile(r"[a-z][-_./][a-z]")


def _is_value(tok: _Tok) -> bool:
    return bool(_NUMERIC_RE.match(tok.norm)) or any(c.isdigit() for c in tok.norm)


def _value_change(new: str, old: str, new_toks: list[_Tok], old_toks: list[_Tok]) -> str | None:
    a, b = _content(old_toks), _content(new_toks)
    if not a or not b:
        return None
    matcher = SequenceMatcher(a=[t.norm for t in a], b=[t.norm for t in b], autojunk=False)
    matched = sum(block.size for block in matcher.get_matching_blocks())
    ratio = matched / max(len(a), len(b))
    changes: list[tuple[list[_Tok], list[_Tok]]] = []
    extra = 0  # content tokens only on one side (added or dropped detail)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op in ("insert", "delete"):
            extra += (i2 - i1) + (j2 - j1)
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
        if matched < 1 or ratio < 0.5:
            return None
        old_slot, new_slot = changes[0]
        names = [t for t in old_slot + new_slot if not _is_value(t) and _NAME_RE.search(t.norm)]
        if names:
            # "ingest-worker is 204" → "auth-worker is 690": the thing changed with the number,
            # so this is another subject, not a new value for the same one.
            return None
    elif matched < 2 or ratio < 0.6 or extra:
        # A word swap alongside added/dropped words is more likely a rewording.
        return None
    elif any(len(o) > 1 or len(n) > 1 for o, n in changes) and any(
        _NAME_RE.search(t.norm) for o, n in changes for t in o + n
    ):
        return None  # a named thing changed along with the words around it: another subject
    elif not at_end:
        # A swapped word mid-sentence is more often another subject ("migrations for
        # profile-worker run on Mondays" vs "... for billing-worker ...") than a new value;
        # values sit at the end ("the default branch is main" → "... is master").
        return None
    return "value changed: " + "; ".join(f"{_chunk(old, o)} → {_chunk(new, n)}" for o, n in changes)


def detect_conflict(new: str, old: str) -> ConflictSignal | None:
    """Return a conflict signal if ``new`` contradicts ``old``, else None.

    Checks, in order: negation flip, value change in an aligned slot, correction cue in
    ``new`` with substantial shared content.

    Args:
        new: The incoming statement.
        old: The existing, very similar statement.
    """
    new_toks, new_neg = _tokenize(new)
    old_toks, old_neg = _tokenize(old)
    new_content = {t.norm for t in _content(new_toks)}
    old_content = {t.norm for t in _content(old_toks)}

    if new_neg % 2 != old_neg % 2 and _jaccard(new_content, old_content) >= 0.6:
        return ConflictSignal("negation", f"negation flip: {_snippet(old)!r} vs {_snippet(new)!r}")

    detail = _value_change(new, old, new_toks, old_toks)
    if detail is not None:
        return ConflictSignal("value", detail)

    cue = has_correction_cue(new)
    if cue is not None and _overlap(new_content, old_content) >= 0.3:
        new_names = {t for t in new_content if _NAME_RE.search(t)}
        old_names = {t for t in old_content if _NAME_RE.search(t)}
        if new_names and old_names and not new_names & old_names:
            return None  # a correction about another named thing
        return ConflictSignal("correction", f"correction cue: {cue!r}")
    return None
