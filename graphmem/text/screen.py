"""Detect and redact secrets so they are never stored in memory.

Pure regex/string heuristics, tuned for precision on ordinary memory content
(prose, code identifiers, paths, URLs, hashes) while catching common credential
formats. Runs on every write, so everything is compiled once at import time.

Every pattern is written so that its work grows linearly with the text (no nested or
overlapping quantifiers, no match start inside a run the pattern could also have started
earlier): any user text reaches the scanner, and a regex that backtracks exponentially would
let one string stall a write.
"""

from __future__ import annotations

import binascii
import bisect
import functools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from ..errors import SecretError, ValidationError
from .secret_patterns import (
    ASSIGNMENT_RE,
    AWS_SECRET_VALUE_RE,
    BASIC_RE,
    BEARER_RE,
    CLI_PASSWORD_RE,
    CODE_RE,
    COMMON_VALUE_WORDS,
    DIGITS_RE,
    DOCKER_AUTH_RE,
    ENTROPY_MIN_LEN,
    ENTROPY_THRESHOLD,
    ENTROPY_THRESHOLD_LOWER,
    GUARDS,
    HEX32_RE,
    HEX_RE,
    HIGH_ENTROPY_RE,
    KIND_PRIORITY,
    LONE_LOWER_RE,
    LOWER_WORD_RE,
    MIN_VALUE_LEN,
    NEEDS_MIXED_BODY,
    NUMBER_RE,
    PAIR_RE,
    PLACEHOLDER_RE,
    PROSE_AFTER_RE,
    PUBLIC_RE,
    RECOVERY_PHRASE_RE,
    REFERENCE_RE,
    SECRET_KEY_RE,
    SPLIT_SEP_RE,
    STATED_ABROAD_RE,
    STATED_RE,
    TOKEN_PATTERNS,
    TWILIO_SID_RE,
    URL_CRED_RE,
    VOWELS,
    WORDY_SEGMENT_RE,
)

__all__ = ["SecretFinding", "find_secrets", "redact_secrets", "screen_fields"]


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


def _token_body(token: str) -> str:
    """The part of a prefixed token after its prefix ("sk-", "hf_", "glpat-")."""
    return re.split(r"[-_]", token, maxsplit=1)[-1]


def _is_placeholder(value: str) -> bool:
    v = value.strip()
    return len(v) < MIN_VALUE_LEN or bool(PLACEHOLDER_RE.match(v)) or bool(NUMBER_RE.match(v))


def _assignment_value_is_secret(value: str, *, quoted: bool, text: str, end: int) -> bool:
    """Whether an assigned value is a credential; ``text[end:]`` is what follows it."""
    if _is_placeholder(value):
        return False
    if quoted:
        # Quoted prose ("stored in vault") is a description, not a credential.
        words = value.split()
        return not (len(words) >= 2 and any(w.lower() in COMMON_VALUE_WORDS for w in words))
    if REFERENCE_RE.match(value):
        return False
    # A bare lowercase word followed by more words is prose ("token: expired and ...").
    return not (
        LOWER_WORD_RE.match(value)
        and (value in COMMON_VALUE_WORDS or PROSE_AFTER_RE.match(text, end))
    )


def _is_high_entropy(candidate: str) -> bool:
    core = candidate.rstrip("=")
    if len(core) < ENTROPY_MIN_LEN or HEX_RE.match(core):
        return False
    if not (any(c.isdigit() for c in core) and any(c.isalpha() for c in core)):
        return False
    if _char_classes(core) < 2:
        return False
    has_upper = any(c.isupper() for c in core)
    if has_upper and not LONE_LOWER_RE.search(core):
        return False  # a long CamelCase identifier: every lowercase letter sits in a word
    segments = [s for s in SPLIT_SEP_RE.split(core) if s and not DIGITS_RE.match(s)]
    # Paths and long identifiers are made of words joined by separators.
    wordy = sum(bool(WORDY_SEGMENT_RE.match(s)) for s in segments)
    longest_other = max((len(s) for s in segments if not WORDY_SEGMENT_RE.match(s)), default=0)
    if len(segments) >= 2 and wordy * 2 >= len(segments) and longest_other < 20:
        return False
    if has_upper:
        return _shannon_entropy(core) >= ENTROPY_THRESHOLD
    # Lower-case + digits has a smaller alphabet; English-like vowel density means words.
    letters = [c for c in core if c.isalpha()]
    if sum(c in VOWELS for c in letters) >= 0.35 * len(letters):
        return False
    return _shannon_entropy(core) >= ENTROPY_THRESHOLD_LOWER


def _unquote(value: str) -> tuple[str, int, bool]:
    """A value without its quotes, the offset of its first character, and whether it was quoted."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"`":
        return value[1:-1], 1, True
    return value, 0, False


def _tokens(text: str) -> list[SecretFinding]:
    found = []
    for kind, pattern in TOKEN_PATTERNS:
        if not any(g in text for g in GUARDS[kind]):
            continue
        for m in pattern.finditer(text):
            if kind in NEEDS_MIXED_BODY and not _looks_random(_token_body(m.group(0))):
                continue
            if kind == "aws_access_key" and not _plausible_aws_id(m.group(0)):
                continue
            found.append(SecretFinding(kind, m.start(), m.end()))
    return found


def _plausible_aws_id(match: str) -> bool:
    # Split forms ("AKIA IOSFODNN7EXAMPLE") could also be capitalised prose ("ASIA PACIFIC
    # TEAM ..."): allow two separators at most and ask for a digit, as generated ids have.
    separators = sum(not c.isalnum() for c in match)
    return separators == 0 or (separators <= 2 and any(c.isdigit() for c in match[4:]))


# Every key ASSIGNMENT_RE can match holds one of these: most texts hold none, and the regex
# would otherwise try a key at every word.
_ASSIGNMENT_GUARDS = (
    "pass", "pw", "secret", "token", "key", "credential", "kennwort", "contrase", "senha",
    "wachtwoord", "senord", "hasło", "haslo", "salasana", "parola", "пароль", "パスワード",
    "密码", "密碼", "비밀번호",
)  # fmt: skip


def _assignments(text: str) -> list[SecretFinding]:
    found: list[SecretFinding] = []
    lowered = text.lower()
    if not any(g in lowered for g in _ASSIGNMENT_GUARDS):
        return found
    for m in ASSIGNMENT_RE.finditer(text):
        group = next(g for g in ("dq", "sq", "bq", "bare") if m.group(g) is not None)
        value = m.group(group)
        start = m.start(group)
        if group == "bare":
            # Markdown emphasis ("a secret: **dry brining**") is not part of a value.
            stripped = value.lstrip("*")
            start += len(value) - len(stripped)
            value = stripped.rstrip(".:*")
            if _PASSWORD_KEY_RE.search(m.group("key")):
                phrase = _passphrase_at(text, start)
                if phrase is not None:
                    found.append(SecretFinding("passphrase", start, phrase))
                    continue
        if not _assignment_value_is_secret(
            value, quoted=group != "bare", text=text, end=start + len(value)
        ):
            continue
        key = m.group("key").lower()
        is_aws = "aws" in key or ("secret" in key and AWS_SECRET_VALUE_RE.match(value))
        kind = "aws_secret_key" if is_aws else "assignment"
        found.append(SecretFinding(kind, start, start + len(value)))
    return found


# Keys that hold a password (password, passwd, passphrase, passcode, pass, pwd, pw): words after
# them can be a passphrase. ("secret" or "token" followed by words is prose far more often.)
_PASSWORD_KEY_RE = re.compile(r"(?i)pass|pw")
_WORD_TOKEN_RE = re.compile(r"[^\s]+")
_PLAIN_WORD_RE = re.compile(r"[A-Za-z]{2,}")
_MIN_PASSPHRASE_WORDS = 4
_MAX_PASSPHRASE_WORDS = 12


@functools.cache
def _stop_words() -> frozenset[str]:
    """English function words (scikit-learn's list), loaded on the first passphrase candidate."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


def _passphrase_at(text: str, start: int) -> int | None:
    """The end of a passphrase of 4+ words that starts at ``start`` ("correct horse battery
    staple"), or None. Prose after a password key ("password: stored in the vault") has
    function words among its first four; a diceware phrase has none."""
    line_end = text.find("\n", start)
    line_end = len(text) if line_end < 0 else line_end
    words = 0
    end = start
    stop = None
    for m in _WORD_TOKEN_RE.finditer(text, start, line_end):
        token = m.group(0)
        word = token.rstrip(".,;:!?)\"'*")
        if not _PLAIN_WORD_RE.fullmatch(word):
            break
        if stop is None:
            stop = _stop_words()
        if word.lower() in stop:
            break
        words += 1
        end = m.start() + len(word)
        if word != token or words == _MAX_PASSPHRASE_WORDS:
            break  # punctuation ends the phrase
    return end if words >= _MIN_PASSPHRASE_WORDS else None


def _cli_and_prose(text: str) -> list[SecretFinding]:
    """Passwords given on command lines or stated in sentences."""
    found: list[SecretFinding] = []
    lowered = text.lower()
    # Cheap substring guards: most texts hold none of these words, and the regexes would
    # otherwise try a match at every word boundary.
    cli = any(g in lowered for g in ("-u", "--user", "--pass", "sshpass", "mysql", "auth"))
    for m in CLI_PASSWORD_RE.finditer(text) if cli else ():
        group = next(g for g in ("upw", "flag", "dashp", "tuple") if m.group(g) is not None)
        value, offset, quoted = _unquote(m.group(group))
        start = m.start(group) + offset
        if _assignment_value_is_secret(value, quoted=quoted, text=text, end=start + len(value)):
            found.append(SecretFinding("cli_password", start, start + len(value)))
    stated = any(g in lowered for g in ("pass", "key", "token", "secret"))
    for m in STATED_RE.finditer(text) if stated else ():
        value, offset, quoted = _unquote(m.group("val"))
        if not quoted:
            value = value.rstrip(".,;:)")
        start = m.start("val") + offset
        if not quoted and _PASSWORD_KEY_RE.search(m.group(0)[: m.start("val") - m.start()]):
            phrase = _passphrase_at(text, start)
            if phrase is not None:
                found.append(SecretFinding("passphrase", start, phrase))
                continue
        if m.group("nosep") is not None and (quoted or len(value) < 6):
            continue  # "password 'x'" or "password abc1" without a separator: prose
        if _stated_value_is_secret(value, quoted=quoted):
            found.append(SecretFinding("stated_password", start, start + len(value)))
    for m in STATED_ABROAD_RE.finditer(text) if not lowered.isascii() or "pass" in lowered or (
        any(g in lowered for g in ("kennwort", "contrase", "clave", "senha", "wachtwoord",
                                   "senord", "haslo", "salasana", "parola"))
    ) else ():  # fmt: skip
        value, offset, quoted = _unquote(m.group("val"))
        if not quoted:
            value = value.rstrip(".,;:)!")
        start = m.start("val") + offset
        if _stated_value_is_secret(value, quoted=quoted):
            found.append(SecretFinding("stated_password", start, start + len(value)))
    for m in CODE_RE.finditer(text) if ("code" in lowered or "pin" in lowered) else ():
        found.append(SecretFinding("access_code", m.start("val"), m.end("val")))
    for m in (
        RECOVERY_PHRASE_RE.finditer(text) if ("phrase" in lowered or "words" in lowered) else ()
    ):
        found.append(SecretFinding("recovery_phrase", m.start("val"), m.end("val")))
    pairs = any(g in lowered for g in ("cred", "login"))
    for m in PAIR_RE.finditer(text) if pairs else ():
        value = m.group("val").rstrip(".,;:)")
        if _stated_value_is_secret(value, quoted=False):
            found.append(
                SecretFinding("stated_password", m.start("val"), m.start("val") + len(value))
            )
    return found


def _stated_value_is_secret(value: str, *, quoted: bool) -> bool:
    # Prose continues after "is" far more often than a password does ("is stored in vault",
    # "is 12 characters"), so a bare value must look generated: letters mixed with digits.
    if _is_placeholder(value) or REFERENCE_RE.match(value):
        return False
    if quoted:
        return _assignment_value_is_secret(value, quoted=True, text="", end=0)
    return _looks_random(value)


def _headers_and_urls(text: str) -> list[SecretFinding]:
    found = []
    for m in URL_CRED_RE.finditer(text) if "://" in text and "@" in text else ():
        if not _is_placeholder(m.group("pw")):
            found.append(SecretFinding("url_credentials", m.start("pw"), m.end("pw")))
    for m in BEARER_RE.finditer(text) if "Bearer" in text else ():
        if _looks_random(m.group("tok")):
            found.append(SecretFinding("bearer_token", m.start("tok"), m.end("tok")))
    for m in BASIC_RE.finditer(text) if "Basic" in text else ():
        if _is_basic_credential(m.group("tok")):
            found.append(SecretFinding("basic_auth", m.start("tok"), m.end("tok")))
    for m in DOCKER_AUTH_RE.finditer(text) if '"auth"' in text else ():
        if _is_basic_credential(m.group("tok")):
            found.append(SecretFinding("basic_auth", m.start("tok"), m.end("tok")))
    if TWILIO_SID_RE.search(text) or "twilio" in text.lower():
        for m in HEX32_RE.finditer(text):
            if text[max(m.start() - 2, 0) : m.start()] != "AC":
                found.append(SecretFinding("twilio_auth_token", m.start(), m.end()))
    return found


def _is_basic_credential(token: str) -> bool:
    try:
        decoded = binascii.a2b_base64(token + "=" * (-len(token) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError):
        return False
    _user, sep, password = decoded.partition(":")
    return bool(sep and password) and decoded.isprintable()


def _high_entropy(text: str, depth: int = 0) -> list[SecretFinding]:
    public = [(m.start(), m.end()) for m in PUBLIC_RE.finditer(text)]
    public_starts = [a for a, _ in public]
    found = []
    for m in HIGH_ENTROPY_RE.finditer(text):
        i = bisect.bisect_right(public_starts, m.start()) - 1
        if i >= 0 and m.start() < public[i][1]:
            continue
        if len(m.group(0)) > _MAX_KEY_CHARS:
            if _encoded_secret(m.group(0), depth):
                found.append(SecretFinding("encoded_secret", m.start(), m.end()))
        elif _is_high_entropy(m.group(0)):
            found.append(SecretFinding("high_entropy", m.start(), m.end()))
    return found


# --------------------------------------------------------------------------- URLs
# A URL's host and path name a document, a commit, a video or a paper: ids there are not
# credentials (Google Docs "/document/d/<id>", Semantic Scholar paper hashes, commit SHAs).
# What grants access is a key in the query string ("?key=", "&sig=", "X-Amz-Signature"), a
# password before the host (url_credentials) or a known capability URL (Slack and Discord
# webhooks, Telegram bot tokens: their own patterns, which apply inside URLs too).
_URL_RE = re.compile(r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,15}://[^\s<>\"'`]+")
_URL_TRAILER = ".,;:!?)]}*"
_URL_PARAM_RE = re.compile(r"[?&#;]([^?&#;]*)")
# Query (or fragment) parameters that carry a credential whatever their value looks like...
_CREDENTIAL_PARAM_RE = re.compile(
    r"(?i)^[\w.\-]*(?:key|token|secret|password|passwd|pwd|signature|credential|sig|apikey)$"
)
_NOT_SECRET_PARAM_RE = re.compile(
    r"(?i)^(?:sv|se|sp|st|sr|spr|skoid|sktid|skt|ske|sks|skv|x-amz-algorithm|x-amz-date"
    r"|x-amz-expires|x-amz-signedheaders|x-goog-algorithm|x-goog-date|x-goog-expires"
    r"|x-goog-signedheaders|key-pair-id|keyword|keywords|monkey|turkey|hockey|jockey|donkey)$"
)
# ...and those that carry one when it looks generated (an OAuth code, a session id).
_MAYBE_CREDENTIAL_PARAM_RE = re.compile(r"(?i)^(?:code|auth|session|sessionid|sid|ticket|jwt)$")
# A path segment after one of these is the key itself ("/api/key/<key>").
_CREDENTIAL_SEGMENT_RE = re.compile(r"(?i)^(?:keys?|tokens?|secrets?|api[_-]?keys?|apikeys?)$")


@dataclass
class _UrlScan:
    findings: list[SecretFinding] = field(default_factory=list)
    # Spans of URL hosts, paths and non-credential parameters: no generic detector flags them.
    quiet: list[tuple[int, int]] = field(default_factory=list)


def _urls(text: str) -> _UrlScan:
    scan = _UrlScan()
    if "://" not in text:
        return scan
    for m in _URL_RE.finditer(text):
        url = m.group(0).rstrip(_URL_TRAILER)
        start = m.start()
        cut = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))
        scan.quiet.append((start, start + cut))
        _url_path(url, start, cut, scan)
        # Parameters of the query and of the fragment ("#access_token=..."), one at a time.
        for p in _URL_PARAM_RE.finditer(url, cut):
            name, eq, value = p.group(1).partition("=")
            _url_param(unquote(name), value, start + p.start(1) + len(name) + len(eq), scan)
    return scan


def _url_path(url: str, start: int, cut: int, scan: _UrlScan) -> None:
    segments = url[:cut].split("/")
    offset = 0
    previous = ""
    for segment in segments:
        if _CREDENTIAL_SEGMENT_RE.match(previous) and len(segment) >= 16 and _looks_random(segment):
            scan.findings.append(
                SecretFinding("url_path_credential", start + offset, start + offset + len(segment))
            )
        previous = segment
        offset += len(segment) + 1


def _url_param(name: str, value: str, vstart: int, scan: _UrlScan) -> None:
    vend = vstart + len(value)
    if not value:
        return
    plain = unquote(value)
    if _NOT_SECRET_PARAM_RE.match(name):
        scan.quiet.append((vstart, vend))
    elif _CREDENTIAL_PARAM_RE.match(name):
        # "?hotkey=ctrl" or "?sortkey=name" name a word, not a credential.
        if not (_is_placeholder(plain) or REFERENCE_RE.match(plain) or LOWER_WORD_RE.match(plain)):
            scan.findings.append(SecretFinding("url_query_credential", vstart, vend))
    elif _MAYBE_CREDENTIAL_PARAM_RE.match(name):
        if len(plain) >= 16 and _looks_random(plain):
            scan.findings.append(SecretFinding("url_query_credential", vstart, vend))
    else:
        # A tracking id, a playlist, a page number: the name says it is not a credential.
        scan.quiet.append((vstart, vend))


# --------------------------------------------------------------------------- hex keys
# A 32/40/64-digit hex string is a key, a digest or an id: it is a key when it stands alone (a
# field or a line of its own) or when the words just before it say so, and not when they name
# a digest or an id.
_HEX_KEY_RE = re.compile(
    r"(?<![0-9A-Za-z_\-])(?:[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64}"
    r"|[0-9A-F]{32}|[0-9A-F]{40}|[0-9A-F]{64}"
    # A UUID is a key only where words say so (Heroku API keys, some service tokens).
    r"|(?P<uuid>[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}))"
    r"(?![0-9A-Za-z_\-])"
)
_KEY_CONTEXT_RE = re.compile(
    r"(?i)(?:\b|_)(?:key|keys|secret|secrets|token|tokens|password|passphrase|credentials?"
    r"|apikey|hmac|bearer|seed|signing)(?:\b|_)"
)
_DIGEST_CONTEXT_RE = re.compile(
    r"(?i)(?:\b|_)(?:sha\d*|md5|hash(?:es)?|digest|checksum|commit|fingerprint|blake\d*|crc\d*"
    r"|etag|uuid|guid|git|rev|revision|object|blob|tree|id|ids|hex|nonce|salt|iv)(?:\b|_)"
)
_HEX_WINDOW = 48
# A UUID written without hyphens (uuid4().hex): its version and variant digits say so.
_UUID_HEX_RE = re.compile(r"^[0-9a-fA-F]{12}[1-5][0-9a-fA-F]{3}[89abAB][0-9a-fA-F]{15}$")


def _hex_keys(text: str) -> list[SecretFinding]:
    found = []
    for m in _HEX_KEY_RE.finditer(text):
        hexstr = m.group(0)
        if not (any(c.isdigit() for c in hexstr) and any(c.isalpha() for c in hexstr)):
            continue
        # Only a bounded window around each match is read: a long line of many hex strings
        # must not be copied or searched once per match.
        window = text[max(m.start() - _HEX_WINDOW, 0) : m.start()]
        before = window.rsplit("\n", 1)[-1]
        head = text[max(m.start() - 8, 0) : m.start()]
        tail = text[m.end() : m.end() + 8]
        alone = (
            ("\n" in head or m.start() <= 8)
            and ("\n" in tail or m.end() + 8 >= len(text))
            and not head.rsplit("\n", 1)[-1].strip(" \t'\"`")
            and not tail.split("\n", 1)[0].strip(" \t'\"`")
        )
        if _DIGEST_CONTEXT_RE.search(before):
            continue
        uuid = m.group("uuid") is not None or _UUID_HEX_RE.match(hexstr)
        if _KEY_CONTEXT_RE.search(before) or (alone and not uuid):
            found.append(SecretFinding("hex_key", m.start(), m.end()))
    return found


# --------------------------------------------------------------------------- encoded blobs
# A run of base64 longer than any generic key is data (an image, a cursor, a document) unless
# what it encodes holds a secret: a private key or a password wrapped in base64 is still one.
# Unprefixed keys are at most ~190 characters (Atlassian API tokens); the longer known
# formats (AWS session tokens, Facebook tokens) have patterns of their own.
_MAX_KEY_CHARS = 200
# What a decoded blob must hold to count: a generic random-looking run inside data is data.
_GENERIC_KINDS = frozenset({"high_entropy", "hex_key"})
_DER_PRIVATE_KEY_RE = re.compile(r"^MII[A-Za-z0-9+/]{1,3}(?:IBADAN|IBAAK|CAQEE)|^MHcCAQEE")


def _encoded_secret(blob: str, depth: int) -> bool:
    """Whether a long base64 run is a headerless private key or encodes a secret."""
    if _DER_PRIVATE_KEY_RE.match(blob):
        return True
    if depth >= 2:
        return False
    core = blob.rstrip("=")
    try:
        raw = binascii.a2b_base64(core + "=" * (-len(core) % 4))
    except binascii.Error:
        return False
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False  # binary data: an image or a compressed file
    if not decoded.isprintable() and not decoded.replace("\n", "").isprintable():
        return False
    return any(f.kind not in _GENERIC_KINDS for f in _find(decoded, depth + 1))


# --------------------------------------------------------------------------- normalising
# Screening reads the text as a person sees it: invisible format characters (zero-width
# spaces and joiners, soft hyphens, bidi marks: Unicode category Cf) are dropped,
# compatibility forms (full-width, mathematical letters) folded by NFKC, letters of other
# scripts that look like Latin ones ("р" for "p") folded when they sit in a word with Latin
# letters or digits, and Markdown's "\\_" read as "_". Findings are mapped back to the text.
_NEEDS_NORMALISING = re.compile(r"[^\x00-\x7f]|\\_")
_RUN_RE = re.compile(r"\S+")


@functools.cache
def _confusables() -> dict[str, list[dict[str, str]]]:
    """Unicode's confusables table (TR39), loaded on the first text that needs it."""
    from confusable_homoglyphs import confusables

    data: dict[str, list[dict[str, str]]] = confusables.confusables_data
    return data


@functools.cache
def _fold(char: str, latin_word: bool) -> str:
    """What ``char`` reads as: "" for an invisible character, ASCII for a look-alike."""
    category = unicodedata.category(char)
    if category == "Cf":
        return ""
    if category == "Mn":
        return ""  # a combining mark drawn over a letter ("g̶h̶p̶_")
    folded = unicodedata.normalize("NFKC", char)
    if folded.isascii():
        return folded
    # A letter with a diacritic reads as its base letter ("é" as "e").
    base = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
    if base and base.isascii():
        return base
    if latin_word:
        for glyph in _confusables().get(char, ()):
            if glyph["c"].isascii() and (glyph["c"].isalnum() or glyph["c"] in "_-"):
                return glyph["c"]
    return char


class _Normalised:
    """The text screened, and the way back from its offsets to the original's."""

    def __init__(self, text: str) -> None:
        self.identity = not _NEEDS_NORMALISING.search(text)
        if self.identity:
            self.text = text
            return
        parts: list[str] = []
        # (offset in the normalised text, offset in the original, length in the original,
        # whether the piece was copied unchanged)
        self.pieces: list[tuple[int, int, int, bool]] = []
        norm = 0
        pos = 0

        def copy(upto: int) -> None:
            nonlocal norm, pos
            if upto > pos:
                parts.append(text[pos:upto])
                self.pieces.append((norm, pos, upto - pos, True))
                norm += upto - pos
                pos = upto

        for run in _RUN_RE.finditer(text):
            word = run.group(0)
            if word.isascii() and "\\_" not in word:
                continue
            latin = any(c.isascii() and c.isalnum() for c in word)
            for i, char in enumerate(word):
                at = run.start() + i
                if char.isascii() and not (char == "\\" and word[i + 1 : i + 2] == "_"):
                    continue
                folded = "" if char == "\\" else _fold(char, latin)
                if folded == char:
                    continue
                copy(at)
                if folded:
                    parts.append(folded)
                    self.pieces.append((norm, at, 1, False))
                    norm += len(folded)
                pos = at + 1
        copy(len(text))
        self.text = "".join(parts)
        self.starts = [p[0] for p in self.pieces]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the normalised ``text[start:end]``."""
        if self.identity:
            return start, end
        i = bisect.bisect_right(self.starts, start) - 1
        norm, orig, length, same = self.pieces[i]
        first = orig + (start - norm) if same else orig
        j = bisect.bisect_right(self.starts, end - 1) - 1
        norm, orig, length, same = self.pieces[j]
        last = orig + (end - norm) if same else orig + length
        return first, last


def _collect(text: str, depth: int = 0) -> list[SecretFinding]:
    urls = _urls(text)
    return [
        *_tokens(text),
        *_assignments(text),
        *_cli_and_prose(text),
        *_headers_and_urls(text),
        *urls.findings,
        *_quiet(_hex_keys(text), urls.quiet),
        *_quiet(_high_entropy(text, depth), urls.quiet),
    ]


def _quiet(findings: list[SecretFinding], quiet: list[tuple[int, int]]) -> list[SecretFinding]:
    """The findings that do not fall inside a URL's quiet spans."""
    if not quiet:
        return findings
    quiet.sort()
    starts = [a for a, _ in quiet]
    kept = []
    for f in findings:
        i = bisect.bisect_right(starts, f.start) - 1
        if i >= 0 and f.end <= quiet[i][1]:
            continue
        kept.append(f)
    return kept


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
    normalised = _Normalised(text)
    return [
        SecretFinding(f.kind, *normalised.span(f.start, f.end)) for f in _find(normalised.text, 0)
    ]


def _find(text: str, depth: int) -> list[SecretFinding]:
    """``find_secrets`` on normalised text; ``depth`` counts base64 layers decoded so far."""
    candidates = sorted(
        _collect(text, depth), key=lambda f: (KIND_PRIORITY[f.kind], f.start, -f.end)
    )
    # Kept spans never overlap, so sorted by start they are also sorted by end: one bisection
    # finds the only neighbours a candidate could overlap (a text can hold thousands).
    starts: list[int] = []
    kept: list[SecretFinding] = []
    for cand in candidates:
        i = bisect.bisect_left(starts, cand.start)
        if i > 0 and kept[i - 1].end > cand.start:
            continue
        if i < len(kept) and kept[i].start < cand.end:
            continue
        starts.insert(i, cand.start)
        kept.insert(i, cand)
    return kept


def redact_secrets(text: str, placeholder: str = "[REDACTED:{kind}]") -> str:
    """Replace every secret in ``text`` with ``placeholder``.

    Args:
        text: Text to clean.
        placeholder: Replacement; ``{kind}`` is substituted with the finding's kind.

    Returns:
        The text with each secret span replaced.
    """
    findings = find_secrets(text)
    return _redact_findings(text, findings, placeholder) if findings else text


def _redact_findings(text: str, findings: list[SecretFinding], placeholder: str) -> str:
    parts: list[str] = []
    pos = 0
    for f in findings:
        parts.append(text[pos : f.start])
        parts.append(placeholder.replace("{kind}", f.kind))
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts)


def _keyed_secret(key: str, value: str) -> bool:
    """Whether ``value``, stored under the dict key ``key``, is a secret by its key's name."""
    if not SECRET_KEY_RE.fullmatch(key):
        return False
    return _assignment_value_is_secret(value, quoted=True, text="", end=0)


# Deeper than any value the write path accepts (metadata is limited to 16 levels).
MAX_DEPTH = 64


def screen_fields(
    fields: Mapping[str, Any],
    *,
    redact: bool,
    identifiers: Collection[str] = (),
    redacted: dict[str, list[str]] | None = None,
) -> dict[str, Any]:
    """Check every string about to be stored for secrets: the one gate of the write path.

    Strings are found anywhere in a field: in lists, tuples and nested dicts, dict keys
    included. Free text (content, triggers, file paths, metadata values, link reasons) is
    redacted when ``redact`` is true. Strings that name or identify something (the fields in
    ``identifiers``, and every dict key) are never redacted: "[REDACTED]" would merge distinct
    tags or projects into one, so a secret there is always refused.

    Args:
        fields: field name -> value, as it will be stored.
        redact: replace secrets in free text instead of refusing them.
        identifiers: names of fields whose strings are identities (id, tags, project, ...).
        redacted: filled with field name -> kinds of secret redacted there, when given.

    Returns:
        The fields, with secrets redacted from free text when ``redact`` is true.

    Raises:
        SecretError: a field holds a secret that may not be redacted (or ``redact`` is
            false); the message and ``fields`` name the fields, never the secret.
    """
    kinds: set[str] = set()
    done: dict[str, set[str]] = {}
    refused: list[str] = []
    redactable = True

    def walk(
        value: Any, name: str, identifier: bool, depth: int = 0, key: str | None = None
    ) -> Any:
        nonlocal redactable
        if depth > MAX_DEPTH:
            # Callers validate shapes first; this guards a cyclic or absurdly deep value that
            # reached the screen anyway (recursing would end in RecursionError).
            raise ValidationError(f"{name} is nested too deeply (or refers to itself)")
        if isinstance(value, str):
            findings = find_secrets(value)
            if key is not None and _DIGEST_CONTEXT_RE.search(key):
                # {"commit": "<sha>"}: the key names a digest or an id, as words before would.
                findings = [f for f in findings if f.kind != "hex_key"]
            if not findings and key is not None and _keyed_secret(key, value):
                findings = [SecretFinding("assignment", 0, len(value))]
            if not findings:
                return value
            if redact and not identifier:
                done.setdefault(name, set()).update(f.kind for f in findings)
                return _redact_findings(value, findings, "[REDACTED:{kind}]")
            kinds.update(f.kind for f in findings)
            redactable = redactable and not identifier
            if name not in refused:
                refused.append(name)
            return value
        if isinstance(value, Mapping):
            return {
                walk(k, name, True, depth + 1): walk(
                    v, name, identifier, depth + 1, k if isinstance(k, str) else None
                )
                for k, v in value.items()
            }
        if isinstance(value, list | tuple):
            return [walk(v, name, identifier, depth + 1) for v in value]
        return value

    screened = {name: walk(value, name, name in identifiers) for name, value in fields.items()}
    if refused:
        hint = (
            "" if not redactable else ", or pass redact=True to store it with the secret redacted"
        )
        verb = "looks" if len(refused) == 1 else "look"
        raise SecretError(
            f"{', '.join(refused)} {verb} like it holds a secret ({', '.join(sorted(kinds))}); "
            f"nothing was stored. Remove it{hint}.",
            sorted(kinds),
            refused,
        )
    if redacted is not None:
        redacted.update({name: sorted(found) for name, found in done.items()})
    return screened
