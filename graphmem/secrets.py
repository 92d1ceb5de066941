"""Detect and redact secrets so they are never stored in memory.

Pure regex/string heuristics, tuned for precision on ordinary memory content
(prose, code identifiers, paths, URLs, hashes) while catching common credential
formats. Runs on every write, so everything is compiled once at import time.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

__all__ = ["SecretFinding", "find_secrets", "redact_secrets"]


@dataclass(frozen=True)
class SecretFinding:
    """A secret found in a text.

    Attributes:
        kind: Category, e.g. ``"github_token"``, ``"assignment"``, ``"high_entropy"``.
        start: Start offset of the secret value in the text.
        end: End offset (exclusive) of the secret value.
    """

    kind: str
    start: int
    end: int


# Ordered by priority: when spans overlap, the earlier (more specific) kind wins.
_TOKEN_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "private_key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)"
        ),
    ),
    (
        "slack_webhook",
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]+"),
    ),
    (
        "aws_access_key",
        re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b"),
    ),
    (
        "github_token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
    ),
    ("gitlab_token", re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}")),
    ("slack_token", re.compile(r"\b(?:xox[abposr]|xapp)-[A-Za-z0-9\-]{10,}")),
    ("anthropic_key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}")),
    (
        "openai_key",
        re.compile(r"(?<![\w-])sk-(?:proj-|svcacct-|admin-|live-|test-)?[A-Za-z0-9_\-]{20,}"),
    ),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*")),
)

# Literal substrings that must occur for a pattern to match: skipping the regex is much
# cheaper than running it over text that cannot contain that kind.
_GUARDS: dict[str, tuple[str, ...]] = {
    "private_key": ("PRIVATE KEY",),
    "slack_webhook": ("hooks.slack.com",),
    "aws_access_key": (
        "AKIA",
        "ASIA",
        "ABIA",
        "ACCA",
        "AIDA",
        "AROA",
        "AIPA",
        "ANPA",
        "ANVA",
        "APKA",
    ),
    "github_token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "gitlab_token": ("glpat-",),
    "slack_token": ("xox", "xapp-"),
    "anthropic_key": ("sk-ant-",),
    "openai_key": ("sk-",),
    "jwt": ("eyJ",),
}

_KIND_PRIORITY: dict[str, int] = {kind: i for i, (kind, _) in enumerate(_TOKEN_PATTERNS)}
_KIND_PRIORITY.update(
    {
        "aws_secret_key": 50,
        "url_credentials": 51,
        "bearer_token": 52,
        "assignment": 53,
        "high_entropy": 99,
    }
)

# Generic prefixes like "sk-" also start ordinary hyphenated words, so the body must look random.
_NEEDS_MIXED_BODY = frozenset({"openai_key", "slack_token"})

# Key names that hold secrets; the keyword must END the key ("max_tokens" and "token_url" are not
# secrets). Optional quotes around the key cover JSON/YAML.
_ASSIGNMENT_RE = re.compile(
    r"""(?ix)
    (?<![\w.-])
    (?P<key>[a-z0-9_.-]*?
        (?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key
           |secret[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?key|credentials?)
    )
    ["']?\s*(?<![=!<>:])(?::|=(?!=)|:=)\s*
    (?:
        "(?P<dq>[^"\n]*)"
      | '(?P<sq>[^'\n]*)'
      | `(?P<bq>[^`\n]*)`
      | (?P<bare>[^\s,;'"`)\]}]+)
    )
    """
)
_URL_CRED_RE = re.compile(
    r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://(?P<user>[^\s:/@]*):(?P<pw>[^\s/@]+)@[\w.\-\[\]]"
)
_BEARER_RE = re.compile(r"\bBearer\s+(?P<tok>[A-Za-z0-9_\-.~+/]{16,}=*)")
_HIGH_ENTROPY_RE = re.compile(r"[A-Za-z0-9+/_\-]{32,}={0,2}")

# Values that are placeholders, templates or references rather than real secrets.
_PLACEHOLDER_RE = re.compile(
    r"""(?ix)^(?:
        <[^>]*> | \[[^\]]*\] | \$\{[^}]*\}? | \$\(.*\)? | \$[a-z_][a-z0-9_]* | %\(?[a-z_]*\)?s?
      | \{\{.*\}\}? | \{[a-z0-9_.]*\} | \*+ | x{3,} | \.{3,} | … | -+ | _+ | \?+ | \#+
      | (?:your|my)[_-]?[a-z_-]* | (?:the|some|a|an)[_-][a-z_-]*
      | .*(?:_here|-here|placeholder|redacted|changeme).* | example | dummy | sample
      | none | null | nil | true | false | undefined | empty | required | optional | string | str
      | bytes | int | secret | password | passwd | pass | token | apikey | api_key | key | value
      | hidden | masked | todo | tbd | n/a | na | foo | bar | baz | test | xxx | abc | 123 | 1234
    )$"""
)
# Code references: env lookups, attribute access, calls, subscripts, ALL_CAPS env-var names.
_REFERENCE_RE = re.compile(
    r"""(?x)^(?:
        (?:os\.environ|os\.getenv|getenv|process\.env|env|ENV|environ|settings|config|conf|cfg
           |self|secrets|vault|request|req|args|kwargs|params|ctx|context)\b.*
      | [A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(.*\)?|\[.*\]?)?
      | [A-Za-z_]\w*\(.*\)?
      | [A-Za-z_]\w*\[.*\]?
      | [A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+
      | [A-Z][a-z]+(?:\[.*\]?)?
    )$"""
)
_AWS_SECRET_VALUE_RE = re.compile(r"^[A-Za-z0-9/+]{40}$")
_NUMBER_RE = re.compile(r"^[+-]?\d+(?:[.,]\d+)*$")
_LOWER_WORD_RE = re.compile(r"^[a-z]+$")
_PROSE_AFTER_RE = re.compile(r"[ \t]+[A-Za-z]{2,}\b")
_HEX_RE = re.compile(r"^[0-9a-fA-F\-]+$")
_SPLIT_SEP_RE = re.compile(r"[/_\-+.=]+")
# Long CamelCase identifiers: every lowercase letter sits in a word-like run.
_CAMEL_WORDS_RE = re.compile(r"^(?:[A-Z]?[a-z]{2,}|[A-Z]{1,5}|\d{1,4}|[/_\-+.=])+$")
_WORDY_SEGMENT_RE = re.compile(r"^(?:[A-Z]?[a-z]{2,})+\d{0,3}$|^[A-Z]{3,}$")
_DIGITS_RE = re.compile(r"^\d+$")
_VOWELS = frozenset("aeiouAEIOU")

_COMMON_VALUE_WORDS = frozenset(
    str.split(
        "is are was were be the a an in on at of for to from with by via as it its and or not no "
        "stored kept saved managed handled rotated set required needed missing invalid expired "
        "valid revoked used see check read"
    )
)

_MIN_VALUE_LEN = 4
_ENTROPY_MIN_LEN = 32
_ENTROPY_THRESHOLD = 4.2
_ENTROPY_THRESHOLD_LOWER = 3.9


def _shannon_entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def _char_classes(s: str) -> int:
    return (
        any(c.islower() for c in s)
        + any(c.isupper() for c in s)
        + any(c.isdigit() for c in s)
        + any(not c.isalnum() for c in s)
    )


def _looks_random(body: str) -> bool:
    """True if a token body mixes letters and digits (as generated keys do)."""
    return any(c.isdigit() for c in body) and any(c.isalpha() for c in body)


def _is_placeholder(value: str) -> bool:
    v = value.strip()
    return len(v) < _MIN_VALUE_LEN or bool(_PLACEHOLDER_RE.match(v)) or bool(_NUMBER_RE.match(v))


def _assignment_value_is_secret(value: str, *, quoted: bool, text_after: str) -> bool:
    if _is_placeholder(value):
        return False
    if quoted:
        # Quoted prose ("stored in vault") is a description, not a credential.
        words = value.split()
        return not (len(words) >= 2 and any(w.lower() in _COMMON_VALUE_WORDS for w in words))
    if _REFERENCE_RE.match(value):
        return False
    # A bare lowercase word followed by more words is prose ("token: expired and ...").
    return not (
        _LOWER_WORD_RE.match(value)
        and (value in _COMMON_VALUE_WORDS or _PROSE_AFTER_RE.match(text_after))
    )


def _is_high_entropy(candidate: str) -> bool:
    core = candidate.rstrip("=")
    if len(core) < _ENTROPY_MIN_LEN or _HEX_RE.match(core):
        return False
    if not (any(c.isdigit() for c in core) and any(c.isalpha() for c in core)):
        return False
    if _char_classes(core) < 2:
        return False
    has_upper = any(c.isupper() for c in core)
    if has_upper and _CAMEL_WORDS_RE.match(core):
        return False
    segments = [s for s in _SPLIT_SEP_RE.split(core) if s and not _DIGITS_RE.match(s)]
    # Paths and long identifiers are made of words joined by separators.
    wordy = sum(bool(_WORDY_SEGMENT_RE.match(s)) for s in segments)
    longest_other = max((len(s) for s in segments if not _WORDY_SEGMENT_RE.match(s)), default=0)
    if len(segments) >= 2 and wordy * 2 >= len(segments) and longest_other < 20:
        return False
    if has_upper:
        return _shannon_entropy(core) >= _ENTROPY_THRESHOLD
    # Lower-case + digits has a smaller alphabet; English-like vowel density means words.
    letters = [c for c in core if c.isalpha()]
    if sum(c in _VOWELS for c in letters) >= 0.35 * len(letters):
        return False
    return _shannon_entropy(core) >= _ENTROPY_THRESHOLD_LOWER


def _collect(text: str) -> list[SecretFinding]:
    found: list[SecretFinding] = []
    for kind, pattern in _TOKEN_PATTERNS:
        if not any(g in text for g in _GUARDS[kind]):
            continue
        for m in pattern.finditer(text):
            if kind in _NEEDS_MIXED_BODY and not _looks_random(m.group(0).split("-", 1)[1]):
                continue
            found.append(SecretFinding(kind, m.start(), m.end()))

    for m in _ASSIGNMENT_RE.finditer(text):
        group = next(g for g in ("dq", "sq", "bq", "bare") if m.group(g) is not None)
        value = m.group(group)
        if group == "bare":
            value = value.rstrip(".:")
        start = m.start(group)
        if not _assignment_value_is_secret(
            value, quoted=group != "bare", text_after=text[start + len(value) :]
        ):
            continue
        key = m.group("key").lower()
        is_aws = "aws" in key or ("secret" in key and _AWS_SECRET_VALUE_RE.match(value))
        kind = "aws_secret_key" if is_aws else "assignment"
        found.append(SecretFinding(kind, start, start + len(value)))

    for m in _URL_CRED_RE.finditer(text) if "://" in text and "@" in text else ():
        if not _is_placeholder(m.group("pw")) and not _PLACEHOLDER_RE.match(m.group("pw")):
            found.append(SecretFinding("url_credentials", m.start("pw"), m.end("pw")))

    for m in _BEARER_RE.finditer(text) if "Bearer" in text else ():
        if _looks_random(m.group("tok")):
            found.append(SecretFinding("bearer_token", m.start("tok"), m.end("tok")))

    for m in _HIGH_ENTROPY_RE.finditer(text):
        if _is_high_entropy(m.group(0)):
            found.append(SecretFinding("high_entropy", m.start(), m.end()))
    return found


def find_secrets(text: str) -> list[SecretFinding]:
    """Find secrets in ``text``.

    Args:
        text: Any text about to be stored.

    Returns:
        Non-overlapping findings sorted by start offset. Where candidates overlap, the
        more specific kind (e.g. ``github_token`` over ``assignment``) wins.
    """
    if not text:
        return []
    candidates = sorted(_collect(text), key=lambda f: (_KIND_PRIORITY[f.kind], f.start, -f.end))
    kept: list[SecretFinding] = []
    for cand in candidates:
        if all(cand.end <= k.start or cand.start >= k.end for k in kept):
            kept.append(cand)
    return sorted(kept, key=lambda f: f.start)


def redact_secrets(text: str, placeholder: str = "[REDACTED:{kind}]") -> str:
    """Replace every secret in ``text`` with ``placeholder``.

    Args:
        text: Text to clean.
        placeholder: Replacement; ``{kind}`` is substituted with the finding's kind.

    Returns:
        The text with each secret span replaced.
    """
    findings = find_secrets(text)
    if not findings:
        return text
    parts: list[str] = []
    pos = 0
    for f in findings:
        parts.append(text[pos : f.start])
        parts.append(placeholder.replace("{kind}", f.kind))
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts)
