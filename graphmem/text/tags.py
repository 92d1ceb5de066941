"""Infer tags (entities, paths, identifiers, hashtags) from text without an LLM.

Tags become shared Tag nodes that link memories mentioning the same thing, so the
normalised name is the identity: "Ed Wood", "ed wood" and "Ed Wood's" are one tag, and so are
"Billing API", "billing-api" and "billing_api" (and "the Ledger service" is "ledger").
Besides capitalised names, the technical shapes agents write are recognised: kebab, snake,
camel and dotted names, paths, hosts, versions and ticket ids.
Heuristics favour precision: a wrong tag links unrelated memories.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["InferredTag", "infer_tags", "is_common_word", "normalize_tag", "title_tag"]


@dataclass(frozen=True)
class InferredTag:
    """A tag inferred from text.

    Attributes:
        name: Normalised tag name (see :func:`normalize_tag`).
        kind: ``"entity"``, ``"path"``, ``"identifier"``, ``"hashtag"``, ``"user"``
            (``"topic"`` is reserved for callers).
    """

    name: str
    kind: str


# --------------------------------------------------------------------------- normalisation


def is_common_word(word: str) -> bool:
    """Whether a word is a function word or a common English word (never a name on its own)."""
    return word.casefold() in _COMMON


# Which normalisation the stored tags follow; a store tagged by an older one is re-tagged on
# open (``maintenance.upgrade_tags``).
TAGGER_VERSION = "7"

_STRIP_CHARS = " \t\r\n\f\v\"'`“”‘’«»()[]{}<>,;:!?*|~^=+&"
_POSSESSIVE_RE = re.compile(r"['’]s$")
_WS_RE = re.compile(r"\s+")
# Word separators inside a name: "billing-api", "billing_api" and "billing api" are one name.
_INNER_SEP_RE = re.compile(r"(?<=[^\W_])[\s_\-]+(?=[^\W_])")
# A trailing type word names the kind of thing, not the thing: "the Ledger service" is ledger.
_TYPE_SUFFIX_RE = re.compile(r" (service|svc)$")
_RAW_TYPE_SUFFIX_RE = re.compile(r"[^\W_][\s_\-]+(?:service|svc)$")


def normalize_tag(name: str) -> str:
    """Normalise a tag name so that one entity maps to one Tag node.

    NFKC, casefold, strip surrounding punctuation/whitespace, a leading ``#``, a leading
    ``./`` and an English possessive ``'s``; collapse inner whitespace. In a name that is not a
    path, dotted name or file, ``-`` and ``_`` between words become a space ("billing-api",
    "billing_api" and "Billing API" are ``billing api``) and a trailing "service"/"svc" goes
    ("Ledger service" is ``ledger``; "Essential Air Service" keeps it) unless what is left is a common word ("session-svc" and
    "the session service" are ``session service``: "session" alone names nothing).
    Paths, dotted names and files keep ``/ . _ -``.
    No stemming.

    Raises:
        ValueError: If nothing is left.
    """
    s = unicodedata.normalize("NFKC", name)
    prev = None
    while s != prev:
        prev = s
        s = s.strip(_STRIP_CHARS).lstrip("#")
        s = _POSSESSIVE_RE.sub("", s)
        if s.startswith("./"):
            s = s[2:]
        # A trailing dot is sentence punctuation; trailing slashes mark a directory.
        if len(s) > 1:
            s = s.rstrip(".").rstrip("/\\") or s
    # Only a type word written in lower case: "Essential Air Service" is a name of its own.
    typed = _RAW_TYPE_SUFFIX_RE.search(s) is not None
    s = _WS_RE.sub(" ", s.casefold()).strip()
    if not s or not any(c.isalnum() for c in s):
        raise ValueError(f"empty tag name: {name!r}")
    if not any(c in s for c in "/\\.@"):
        s = _INNER_SEP_RE.sub(" ", s)
        if typed and (suffix := _TYPE_SUFFIX_RE.search(s)) is not None:
            rest = s[: suffix.start()]
            s = f"{rest} service" if is_common_word(rest) else rest
    return s


# --------------------------------------------------------------------------- word lists


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Function words and sentence openers: never an entity on their own.
_STOPWORDS = _words(
    """a an the this that these those there here it its it's i me my mine we us our ours you
    your yours he him his she her hers they them their theirs who whom whose which what when
    where why how whoever whatever and or but nor so yet if then else than because since
    though although while whereas unless until as at by for from in into of off on onto out
    over per to up upon via with within without about above across after against along among
    around before behind below beneath beside between beyond during except inside near past
    through throughout toward towards under underneath is am are was were be been being do does
    did done doing have has had having will would shall should can could may might must not no
    yes all any both each either every few many more most much neither none other others own
    same several some such very too also just only even still already again ever never always
    often sometimes usually rarely now soon today tomorrow yesterday tonight however therefore
    thus hence moreover furthermore meanwhile otherwise instead indeed actually basically
    probably perhaps maybe please thanks thank hello hi hey okay ok well oh like via etc"""
)

# Common sentence-initial words (imperatives, adverbs, generic nouns). A sentence-initial
# capitalised word in this list is grammar, not a name.
_COMMON = _STOPWORDS | _words(
    """use uses used using run runs ran running make makes made making set sets setting get gets
    got getting add adds added adding remove removes removed removing delete deletes deleted
    create creates created creating update updates updated updating install installs installed
    installing check checks checked checking test tests tested testing build builds built
    building deploy deploys deployed deploying start starts started starting stop stops stopped
    keep keeps kept prefer prefers preferred avoid avoids avoided remember remembers note notes
    noted see sees saw seen look looks looked find finds found try tries tried call calls called
    write writes wrote written read reads open opens opened close closes closed save saves saved
    load loads loaded send sends sent move moves moved copy copies copied change changes changed
    fix fixes fixed fixing return returns returned need needs needed want wants wanted know knows
    knew think thinks thought say says said tell tells told ask asks asked give gives gave take
    takes took put puts go goes went gone come comes came work works worked working help helps
    helped show shows showed shown let lets allow allows allowed enable enables enabled disable
    disables disabled ensure ensures make sure verify verifies switch switches switched migrate
    migrated upgrade upgraded downgrade replace replaced rename renamed configure configured
    store stores stored log logs logged print prints printed push pushes pushed pull pulls
    pulled merge merged commit commits committed clone cloned wait waits follow follows
    following consider considers include includes included including contains contain
    first second third last next previous new old current default main other another one two
    three four five six seven eight nine ten once twice every everything everyone everybody
    something someone somebody anything anyone nothing nobody each both
    important warning error errors tip tips todo fixme fyi summary overview background context
    example examples step steps result results answer question problem issue issues solution
    reason because since given based according overall generally typically specifically
    currently recently previously finally initially eventually additionally also alternatively
    apparently clearly obviously unfortunately fortunately hopefully ideally importantly
    interestingly notably similarly likewise consequently accordingly regardless nonetheless
    nevertheless besides afterwards later earlier yes no true false none null done ready good
    great fine sure right left back up down yes user users people person team teams file files
    data code project projects system systems service services app apps version versions
    remember don't doesn't didn't can't won't isn't aren't wasn't weren't shouldn't couldn't
    wouldn't haven't hasn't hadn't let's i'm i've i'd i'll we're we've you're they're he's
    she's that's there's here's what's who's where's how's list lists visit visits meeting
    meetings colour colours color colors thing things way ways time times day days week weeks
    month months year years today's lot lots part parts kind kinds type types point points
    case cases fact idea ideas plan plans goal goals task tasks bug bugs feature features
    change config settings setup support review reviews release releases deadline status
    yesterday's people's someone's nobody's docs doc documentation notes details
    info information usage rate rates limit limits svc datastore datastores database databases
    db cluster clusters worker workers gateway api apis endpoint endpoints repo repos region
    regions upstream downstream replica replicas owner owners lead office dependency"""
)

_CALENDAR = _words(
    """january february march april may june july august september october november december
    jan feb apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday
    saturday sunday tues thur thurs"""
)
_PRONOUNS = _words("i he she it we they you me him her us them his hers its our their your my mine")
_DEMONYMS = _words(
    """american british english french german italian spanish portuguese dutch belgian swiss
    austrian swedish norwegian danish finnish icelandic irish scottish welsh polish czech slovak
    hungarian romanian bulgarian greek turkish russian ukrainian chinese japanese korean
    vietnamese thai indian pakistani bangladeshi indonesian filipino malaysian australian
    canadian mexican brazilian argentine argentinian chilean colombian peruvian cuban african
    egyptian nigerian kenyan ethiopian moroccan israeli iranian iraqi arab arabic persian
    saudi european asian latin western eastern northern southern soviet roman jewish christian
    muslim catholic protestant hindu buddhist"""
)
# Trimmed from either end of a multi-word phrase ("In January Alice" → "Alice").
_EDGE = _STOPWORDS | _CALENDAR | _PRONOUNS | _words("mr mrs ms mx dr prof sir madam")
# Never an entity on their own, even mid-sentence ("an American filmmaker", "He said").
_GENERIC = _EDGE | _DEMONYMS | _words("jr sr true false none null nil")

# Honorifics dropped from the front of a name ("Dr. Jane Smith" → "jane smith").
_HONORIFICS = _words("mr mrs ms mx dr prof sir madam lady lord")
# Abbreviations whose trailing '.' does not end the sentence.
_ABBREVIATIONS = _words("mr mrs ms mx dr prof st jr sr mt ft co inc ltd corp vs no gen col lt sgt")
# Lower-case words allowed inside a proper-noun phrase ("Bank of America", "Ludwig van Beethoven").
_CONNECTORS = _words("of de del della der den van von da di du la le the y al el bin ibn")
_DETERMINERS = _words(
    "the a an this that these those our my your his her their its every each some any"
)
# All-caps tokens that are shouting or boilerplate, not acronyms.
_CAPS_STOP = _words("ok am pm ps eg ie vs etc na tbd tba fyi asap eta imo imho btw lgtm wip todo")

_CODE_EXTS = (
    "py|pyi|pyx|ipynb|js|jsx|mjs|cjs|ts|tsx|json|jsonl|yaml|yml|toml|ini|cfg|conf|env|md|rst|txt"
    "|csv|tsv|parquet|html|htm|css|scss|sass|less|sh|bash|zsh|fish|ps1|bat|cmd|rs|go|java|kt|kts"
    "|scala|c|h|cc|cpp|cxx|hpp|hh|cs|fs|rb|php|swift|m|mm|sql|xml|lock|log|proto|gradle|tf|tfvars"
    "|hcl|vue|svelte|lua|pl|pm|r|jl|dart|ex|exs|erl|hs|ml|clj|zig|nim|mk|cmake|dockerfile|sum"
    "|mod|pem|crt|key|pub|jpg|jpeg|png|gif|svg|webp|pdf|zip|gz|tgz|tar|bz2|xz|whl|so|dll|dylib"
    "|exe|bin|db|sqlite|sqlite3|npmrc|gitignore|dockerignore|editorconfig|patch|diff"
)
_TLDS = _words(
    "com org net edu gov io ai dev app co uk de fr nl eu us ca au jp cn ru info biz me ly"
)
_MACROS = _words(
    "println print eprintln eprint format vec assert assert_eq assert_ne panic todo unimplemented "
    "unreachable write writeln dbg include_str include_bytes env concat matches macro_rules"
)
_DECORATORS = _words(
    "property staticmethod classmethod dataclass override abstractmethod cached_property "
    "lru_cache cache wraps contextmanager fixture pytest app router overload total_ordering"
)
# What follows the dot of a dotted decorator ("@celery.task", "@mcp.tool"): no handle's.
_DECORATOR_TAILS = _words(
    "task jit route get post put delete command tool resource prompt setter getter deleter "
    "validator callback register hookimpl receiver expose compile"
)

# --------------------------------------------------------------------------- regexes

_URL_RE = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s<>\"'`]+|\bwww\.[^\s<>\"'`]+")
_EMAIL_RE = re.compile(r"\b[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+")
_FENCE_RE = re.compile(r"```[^\n]*\n[\s\S]*?(?:```|\Z)")
_HASHTAG_RE = re.compile(r"(?<![\w&#/])#([A-Za-z][\w\-]*[A-Za-z0-9_]|[A-Za-z])")
_HEX_COLOUR_RE = re.compile(r"^(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")
# A mention: "@wzhang", "@hannah_l", "@rhys-ll", and "@siobhan.kealy" or "@b.ince" (one dot
# between two parts, as chat workspaces allow). Not "@app.route(" nor a third part
# ("@pytest.mark.slow"): decorators. A dot then a space ends the sentence, not the handle.
_MENTION_PART = r"[A-Za-z](?:[\w\-]{0,38}[A-Za-z0-9_])?"
_MENTION_RE = re.compile(rf"(?<![\w.@])@((?:{_MENTION_PART}\.)?{_MENTION_PART})(?![\w(]|\.\w)")
_BACKTICK_RE = re.compile(r"`([^`\n]{1,80})`")
_WIN_PATH_RE = re.compile(
    r"(?<![\w])[A-Za-z]:\\(?:[^\\\s:*?\"<>|,;`']+\\)*[^\\\s:*?\"<>|,;`']*(?<![.])"
)
_UNIX_PATH_RE = re.compile(r"(?<![\w/.~:\-\\])(?:~|\.{1,2})?/?(?:[\w.\-@+]+/)+[\w.\-@+]*(?<![.])")
_BARE_FILE_RE = re.compile(
    rf"(?<![\w/.\\\-])[\w\-]+(?:\.[\w\-]+)*\.(?:{_CODE_EXTS})(?![\w\-(])", re.IGNORECASE
)
_DOTFILE_RE = re.compile(r"(?<![\w/.\\\-])\.[a-z][\w\-]*(?:\.[\w\-]+)*(?![\w(])")
_FILE_EXT_RE = re.compile(rf"\.(?:{_CODE_EXTS})$", re.IGNORECASE)
_JS_LIB_RE = re.compile(r"^[A-Z][A-Za-z]+\.js$")
_CALL_RE = re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\((?!s\)|es\))")
_DOTTED_RE = re.compile(r"(?<![\w.@/\\\-])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?![\w\-])")
_SNAKE_RE = re.compile(r"(?<![\w.])_*[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)+_*(?![\w.])")
_CAMEL_RE = re.compile(
    r"\b(?:[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[A-Z]{2,}[a-z]{2,}[A-Za-z0-9]*)\b"
)
# Lower-case hyphenated names ("billing-api", "pg-orders", "eu-west-1"), told from hyphenated
# prose ("long-term", "read-only", "built-in") by their parts.
_KEBAB_RE = re.compile(r"(?<![\w./\\@#\-])[A-Za-z][a-z0-9]*(?:-[a-z0-9]+)+(?![\w/\\\-]|\.\w)")
_TICKET_RE = re.compile(r"(?<![\w\-])[A-Z][A-Z0-9]{1,9}-\d{1,6}(?![\w\-])")
_VERSION_RE = re.compile(r"(?<![\w.\-])(?:v\d+(?:\.\d+){1,3}|\d+\.\d+\.\d+)(?![\w\-]|\.\d)")
_HOST_RE = re.compile(
    r"(?<![\w.@/\-])[a-z0-9]+(?:-[a-z0-9]+)+(?:\.[a-z0-9\-]+)*\.[a-z]{2,}(?![\w\-]|\.\w)"
)
# Parts that mark a hyphenated word as a technical name ("comedy-drama" is prose).
_TECH_PARTS = _words(
    """api apis svc srv service worker workers gateway gw proxy db pg sql mysql mongo redis kafka
    es queue mq bus cache cron job jobs etl cli sdk lib ui web app bff backend frontend server
    client daemon agent bot indexer scheduler consumer producer stream sync rpc grpc http auth
    k8s prod staging stg dev qa int ci cd infra ops core internal"""
)
_PROSE_HEADS = _words(
    """non self multi well long short high low real read write built open follow re pre co sub
    semi anti cross full half so all any one two three first second third top state end"""
)
_PROSE_TAILS = _words(
    """in up out on off only time term level based known side like wide free safe aware down
    over back by to related specific friendly oriented driven facing made ready"""
)
# A lower-case name followed by the kind of thing it names: "the ledger service".
_TYPED_NAME_RE = re.compile(
    r"(?<![\w\-])([a-z][a-z0-9]{2,}(?:-[a-z0-9]+)*)\s+(?:service|svc|microservice|datastore|database"
    r"|cluster|queue|topic|repo|repository|bucket|pipeline|library)\b"
)
# "the X service" with an ordinary word X is a name only after "the", and not for these.
_THE_BEFORE_RE = re.compile(r"(?:^|\W)the\s+$", re.IGNORECASE)
_TYPED_NOT_NAMES = _words(
    """new old main same other whole entire web core external internal third local remote
    upstream downstream default primary secondary legacy production staging test shared
    customer data backend frontend platform your our their my its this that whole"""
)
_MACRO_RE = re.compile(r"(?<![\w.])([a-z_][a-z0-9_]*)!(?=[\s(\[{]|$)")
_UPPER = r"[A-Z\u00C0-\u00D6\u00D8-\u00DE\u0100-\u024F\u0370-\u03FF\u0400-\u042F]"
_CAP_WORD = _UPPER + r"[\w'’\-]*"
_PHRASE_RE = re.compile(
    rf"(?<![\w'’\-]){_CAP_WORD}"
    rf"(?:\.?[ \t]+(?:(?:{'|'.join(sorted(_CONNECTORS))})[ \t]+){{0,3}}{_CAP_WORD})*"
)
_PHRASE_WORD_RE = re.compile(r"[\w'’\-]+|\.")
_OPENERS = frozenset(" \t\"'“”‘’«»([{*•>-\x00")
_PATH_SEP_RE = re.compile(r"[/\\]")
_CALL_SUFFIX_RE = re.compile(r"\(.*\)$|!$")
_LOWER_WORD_RE = re.compile(r"\b[a-z][\w'\-]*")
_NUMERIC_SEGMENTS_RE = re.compile(r"^[\d/.\-]+$")
_VERSION_SUFFIX_RE = re.compile(r"^([A-Z][a-z]{3,})\d+$")
_TRAILING_PAREN_RE = re.compile(r"\s*\([^()]*\)\s*$")
_HEADING_RE = re.compile(r"^#{1,6}\s+")

_GRAMMAR_SUFFIXES = ("ing", "ly", "ed")
_KIND_RANK = {"hashtag": 0, "user": 1, "path": 2, "identifier": 3, "entity": 4}
_MASK = "\x00"
# The tagger's rules are not Config fields: a store's tags must not depend on who opened it, so
# they change only with TAGGER_VERSION (which re-tags stores once).
_MAX_PHRASE_WORDS = 6
_MAX_TITLE_WORDS = 8

_Found = list[tuple[int, str, str]]  # (position, raw name, kind)
_Word = tuple[int, str, bool, bool]  # (position, word, sentence_initial, is_connector)


# --------------------------------------------------------------------------- helpers


def _mask_sub(
    pattern: re.Pattern[str], text: str, on_match: Callable[[re.Match[str]], bool]
) -> str:
    """Blank out matches for which ``on_match`` returns True (offsets are preserved)."""

    def repl(m: re.Match[str]) -> str:
        return _MASK * len(m.group(0)) if on_match(m) else m.group(0)

    return pattern.sub(repl, text)


def _always(_m: re.Match[str]) -> bool:
    return True


def _is_path(candidate: str) -> bool:
    c = candidate.rstrip(".,:;")
    if not c or "//" in c:
        return False
    anchored = c.startswith(("/", "~/", "./", "../"))
    segments = [s for s in _PATH_SEP_RE.split(c) if s and s not in (".", "..", "~")]
    if not segments or all(_NUMERIC_SEGMENTS_RE.match(s) for s in segments):
        return False  # dates like 2024/05/01, ratios like 24/7
    if _FILE_EXT_RE.search(c):
        return True
    if anchored:
        return len(segments) >= 2 or c.startswith(("~/", "./", "../"))
    # Relative: "and/or", "requests/min", "TCP/IP" are prose, "src/auth/" or "a/b/c" are paths.
    return len(segments) >= 3 or (c.endswith("/") and segments[0][0].isalpha())


def _kebab_ok(name: str) -> bool:
    """Whether a hyphenated word names something rather than being hyphenated prose."""
    parts = name.casefold().split("-")
    numbered = any(c.isdigit() for c in name)
    # "up-to-date" is prose; "us-west-2" (a region) is not, though "us" is a stopword.
    if (not numbered and any(p in _STOPWORDS for p in parts)) or parts[0] in _PROSE_HEADS:
        return False
    if parts[-1] in _PROSE_TAILS or all(p.isdigit() for p in parts[1:]):
        return False
    return any(p in _TECH_PARTS or any(c.isdigit() for c in p) for p in parts)


def _identifier_ok(name: str) -> bool:
    parts = name.split(".")
    return not all(len(p) <= 2 for p in parts)


def _title_of(text: str) -> str | None:
    """The first line of a "Title\\nText" passage, if it looks like a title."""
    first, sep, rest = text.partition("\n")
    if not sep or not rest.strip():
        return None
    line = _HEADING_RE.sub("", first.strip())
    line = _TRAILING_PAREN_RE.sub("", line).strip()
    if not line or line[-1] in ".!?:;," or not line[0].isupper():
        return None
    words = line.split()
    if len(words) > _MAX_TITLE_WORDS:
        return None
    alpha = [w for w in words if w[0].isalpha()]
    if len(words) > 3 and sum(w[0].isupper() for w in alpha) * 2 < len(alpha):
        return None  # a lower-case sentence, not a title
    while words and words[0].casefold() in _DETERMINERS and len(words) > 1:
        words = words[1:]
    return " ".join(words)


def heading(text: str) -> str | None:
    """The first line of a memory that opens with a heading ("Title\\nText"), case-folded.

    Looser than a title (which names an entity): any short first line that does not end like
    a sentence, such as "List of songs performed live by Metallica".
    """
    first, sep, rest = text.partition("\n")
    if not sep or not rest.strip():
        return None
    line = _HEADING_RE.sub("", first.strip())
    if not line or line[-1] in ".!?:;," or len(line.split()) > 2 * _MAX_TITLE_WORDS:
        return None
    return " ".join(line.casefold().split())


def title_tag(text: str) -> str | None:
    """The normalised tag of a "Title\nText" memory's title: the entity the memory is about."""
    title = _title_of(text)
    if not title:
        return None
    try:
        return normalize_tag(title)
    except ValueError:
        return None


# --------------------------------------------------------------------------- entities


def _is_sentence_start(text: str, pos: int) -> bool:
    j = pos - 1
    while j >= 0 and text[j] in _OPENERS:
        j -= 1
    if j < 0 or text[j] in "\n!?:":
        return True
    if text[j] != ".":
        return False
    k = j
    while k > 0 and text[k - 1].isalpha():
        k -= 1
    prev = text[k:j]
    return not (prev.casefold() in _ABBREVIATIONS or (len(prev) == 1 and prev.isupper()))


def _split_phrase(text: str, m: re.Match[str]) -> list[list[_Word]]:
    """Split a matched capitalised run into phrases of (pos, word, initial, connector)."""
    parts: list[list[_Word]] = []
    current: list[_Word] = []
    initial = _is_sentence_start(text, m.start())
    base = m.start()
    for w in _PHRASE_WORD_RE.finditer(m.group(0)):
        tok = w.group(0)
        if tok == ".":
            prev = current[-1][1] if current else ""
            if not (prev.casefold() in _ABBREVIATIONS or (len(prev) == 1 and prev.isupper())):
                if current:
                    parts.append(current)
                current = []
                initial = True  # a real full stop inside the run: next word starts a sentence
            continue
        is_conn = not tok[0].isupper()
        if not is_conn and not tok[0].isalpha():
            continue
        current.append((base + w.start(), tok, initial and not current, is_conn))
        if tok.endswith(("'s", "’s")):
            # A possessive ends the noun phrase: "Alice's Bank" is two things.
            parts.append(current)
            current = []
            initial = False
    if current:
        parts.append(current)
    return parts


def _entity_phrases(masked: str, original: str) -> _Found:
    """Capitalised phrases from ``masked`` (code, paths and URLs already blanked)."""
    phrases = [p for m in _PHRASE_RE.finditer(masked) for p in _split_phrase(masked, m)]
    # Words seen capitalised mid-sentence: evidence that a sentence-initial one is a name too.
    mid_caps = {
        w.casefold() for p in phrases for (_, w, initial, conn) in p if not initial and not conn
    }
    lowered: set[str] | None = None

    found: _Found = []
    for phrase in phrases:
        words = list(phrase)
        while words and words[-1][3]:
            words.pop()
        while words and (
            words[0][3]
            or words[0][1].casefold() in _HONORIFICS
            or words[0][1].casefold() in _DETERMINERS
            or (words[0][2] and len(words) > 1 and words[0][1].casefold() in _COMMON)
            or (len(words) > 1 and _POSSESSIVE_RE.sub("", words[0][1]).casefold() in _EDGE)
        ):
            words.pop(0)
        while len(words) > 1 and (words[-1][3] or words[-1][1].casefold() in _EDGE):
            words.pop()
        if not words or len(words) > _MAX_PHRASE_WORDS:
            continue
        if len(words) == 1:
            _, tok, initial, _ = words[0]
            folded = _POSSESSIVE_RE.sub("", tok).casefold()
            if initial and folded not in _COMMON and lowered is None:
                lowered = set(_LOWER_WORD_RE.findall(original))
            if not _single_word_entity(words[0], mid_caps, lowered or set()):
                continue
        name_words = [w for (_, w, _, _) in words]
        if len(name_words) == 1 and (vm := _VERSION_SUFFIX_RE.match(name_words[0])):
            name_words = [vm.group(1)]  # "Python3" → "Python": versions stay out of tag names
        found.append((words[0][0], " ".join(name_words), "entity"))
    return found


def _single_word_entity(
    word: tuple[int, str, bool, bool], mid_caps: set[str], lowered_words: set[str]
) -> bool:
    _, tok, initial, _ = word
    base = _POSSESSIVE_RE.sub("", tok)
    folded = base.casefold()
    if len(base) < 2 or folded in _GENERIC:
        return False
    if base.isupper():
        return folded not in _CAPS_STOP and folded not in _COMMON
    if not initial:
        return True
    if folded in _COMMON or (len(folded) >= 6 and folded.endswith(_GRAMMAR_SUFFIXES)):
        # Sentence-initial grammar word ("Use", "Meeting", "Apparently") unless also
        # capitalised mid-sentence somewhere ("Go is fast. I like Go.").
        return folded in mid_caps
    # Sentence-initial and also used lower-case elsewhere: an ordinary word.
    return folded not in lowered_words


# --------------------------------------------------------------------------- main entry


def infer_tags(
    text: str, *, file_paths: Sequence[str] = (), max_tags: int = 12
) -> list[InferredTag]:
    """Infer tags from ``text``.

    Args:
        text: Memory content. If its first line is a short title ("Title\\nText" passages),
            the title becomes an entity tag.
        file_paths: Paths attached to the memory; always tagged (kind ``"path"``), first.
        max_tags: Maximum number of tags returned.

    Returns:
        Tags deduplicated by normalised name, in order of first appearance; for a name found
        as several kinds, the kind with priority hashtag > user > path > identifier > entity.
    """
    found: _Found = [(-1, p, "path") for p in file_paths]
    if text:
        found.extend(_scan(text))

    best: dict[str, tuple[int, str]] = {}
    order: list[str] = []
    for pos, raw, kind in sorted(found, key=lambda f: f[0]):
        try:
            name = normalize_tag(raw)
        except ValueError:
            continue
        if kind == "entity" and name.casefold() in _GENERIC:
            continue
        if name not in best:
            best[name] = (pos, kind)
            order.append(name)
        elif _KIND_RANK[kind] < _KIND_RANK[best[name][1]]:
            best[name] = (best[name][0], kind)
    return [InferredTag(name, best[name][1]) for name in order[: max(max_tags, 0)]]


def _scan(text: str) -> _Found:
    found: _Found = []
    text = unicodedata.normalize("NFKC", text)

    def add(kind: str, group: int = 0, check: Callable[[str], bool] | None = None):
        def on_match(m: re.Match[str]) -> bool:
            value = m.group(group)
            if check is not None and not check(value):
                return False
            found.append((m.start(group), value, kind))
            return True

        return on_match

    # Cheap substring guards skip most patterns on plain prose (these run on every write).
    masked = text
    if "://" in text or "www." in text:
        masked = _mask_sub(_URL_RE, masked, _always)
    if "@" in text:
        masked = _mask_sub(_EMAIL_RE, masked, _always)
        masked = _mask_sub(_MENTION_RE, masked, lambda m: _mention(m, found))
    if "#" in text:
        masked = _mask_sub(
            _HASHTAG_RE, masked, add("hashtag", 1, lambda v: not _HEX_COLOUR_RE.match(v))
        )
    if "`" in text:
        masked = _mask_sub(_BACKTICK_RE, masked, lambda m: _backtick(m, found))
    if ":\\" in text:
        masked = _mask_sub(_WIN_PATH_RE, masked, add("path"))
    if "/" in text:
        masked = _mask_sub(_UNIX_PATH_RE, masked, add("path", check=_is_path))
    if "." in text:
        masked = _mask_sub(_BARE_FILE_RE, masked, lambda m: _bare_file(m, found))
        masked = _mask_sub(_DOTFILE_RE, masked, add("path", check=lambda v: len(v) > 2))
    if "-" in text:
        masked = _mask_sub(_TICKET_RE, masked, add("identifier"))
    if "." in text:
        masked = _mask_sub(_VERSION_RE, masked, add("identifier"))
        if "-" in text:
            masked = _mask_sub(_HOST_RE, masked, add("identifier"))
    if "(" in text:
        masked = _mask_sub(_CALL_RE, masked, add("identifier", 1, _identifier_ok))
    if "." in text:
        masked = _mask_sub(_DOTTED_RE, masked, lambda m: _dotted(m, found))
    if "_" in text:
        masked = _mask_sub(_SNAKE_RE, masked, add("identifier"))
    masked = _mask_sub(_CAMEL_RE, masked, add("identifier"))
    if "-" in text:
        masked = _mask_sub(_KEBAB_RE, masked, add("identifier", check=_kebab_ok))
    if "!" in text:
        masked = _mask_sub(
            _MACRO_RE, masked, add("identifier", 1, lambda v: v in _MACROS or "_" in v)
        )
    for m in _TYPED_NAME_RE.finditer(masked):
        name = m.group(1)
        if name in _GENERIC or name in _TYPED_NOT_NAMES:
            continue
        # "the review service" names a service even though "review" is an ordinary word: the
        # name keeps its type word then ("review service"), so "a code review" is not it.
        if is_common_word(name):
            if not _THE_BEFORE_RE.search(masked[max(0, m.start(1) - 8) : m.start(1)]):
                continue
            name = m.group(0)
        found.append((m.start(1), name, "entity"))
    if "```" in text:
        # Fenced code is neither prose nor names.
        masked = _mask_sub(_FENCE_RE, masked, _always)

    title = _title_of(text)
    if title:
        found.append((0, title, "entity"))
    found.extend(_entity_phrases(masked, text))
    return found


def mentions_apart(text: str) -> str:
    """The text with each dotted mention's dot a joiner ("@siobhan.kealy" as
    "@siobhan_kealy"): its parts are words, as the tagger reads them (``_mention``)."""
    if "@" not in text or "." not in text:
        return text

    def apart(m: re.Match[str]) -> str:
        found: _Found = []
        split = _mention(m, found) and found and " " in found[0][1]
        return m.group(0).replace(".", "_") if split else m.group(0)

    return _MENTION_RE.sub(apart, text)


def _mention(m: re.Match[str], found: _Found) -> bool:
    """A user mention, its parts apart: "@siobhan.kealy" is the tag ``siobhan kealy``, the
    name's own, as "@hannah_l" is ``hannah l``. Not a decorator (a known decorator word, or
    a dotted name that is code, ``_dotted_code``), nor a file ("@README.md")."""
    value = m.group(1)
    parts = value.casefold().split(".")
    if len(value) < 2 or any(p in _DECORATORS for p in parts):
        return False
    if len(parts) > 1:
        first, second = value.split(".")
        if len(first) > 1 and first[:1].islower() and second[:1].isupper():
            # "ask @wrobel.Then ...": a full stop without its space.
            found.append((m.start(1), first, "user"))
            return True
        if _dotted_code(m, second):
            return False
    found.append((m.start(1), value.replace(".", " "), "user"))
    return True


_EXTENSION_RE = re.compile(rf"(?:{_CODE_EXTS})", re.IGNORECASE)
_DEFINITION_RE = re.compile(r"\s*(?:(?:async\s+)?def\s+\w+\s*\(|class\s+\w+\s*[:(])")
# The last part of a domain ("@example.com"): no handle's.
_DOMAINS = _words("com org net io dev app co uk de fr nl eu us ai edu gov info biz me")
_NO_HANDLE_TAILS = _DECORATOR_TAILS | _DOMAINS
_CALLED_DECORATOR_RE = re.compile(r"\s*decorator", re.IGNORECASE)
# How many lines below a dotted name alone on its line are read for the definition it decorates.
_DECORATED_LINES = 20


def _dotted_code(m: re.Match[str], second: str) -> bool:
    """Whether "@a.b" is code, not a handle: a file ("@package.json"), a name with "_" or a
    digit after the dot ("@st.cache_data"), in code (a fence or backticks), called a
    decorator ("the @jax.jit decorator"), or alone on its line above a definition, past any
    other decorators ("@mock.patch\\ndef test(): ...")."""
    text, start = m.string, m.start()
    if _EXTENSION_RE.fullmatch(second) or second.casefold() in _NO_HANDLE_TAILS:
        return True
    if "_" in second or any(c.isdigit() for c in second):
        return True
    line_start = text.rfind("\n", 0, start) + 1
    if text.count("```", 0, start) % 2 or text.count("`", line_start, start) % 2:
        return True
    if _CALLED_DECORATOR_RE.match(text, m.end()):
        return True
    line_end = text.find("\n", m.end())
    if line_end < 0 or text[line_start:start].strip() or text[m.end() : line_end].strip():
        return False
    end = line_end
    for _ in range(_DECORATED_LINES):
        nxt = text.find("\n", end + 1)
        line = text[end + 1 : nxt if nxt >= 0 else len(text)]
        if not line.strip().startswith("@"):
            return bool(_DEFINITION_RE.match(line))
        if nxt < 0:
            break
        end = nxt
    return False


def _backtick(m: re.Match[str], found: _Found) -> bool:
    inner = m.group(1).strip()
    if not inner:
        return False
    if _is_path(inner) or _FILE_EXT_RE.search(inner) or _WIN_PATH_RE.fullmatch(inner):
        found.append((m.start(1), inner, "path"))
        return True
    if len(inner.split()) > 3:
        return False  # a longer code snippet: let the other patterns pick it apart
    inner = _CALL_SUFFIX_RE.sub("", inner).strip()
    if inner:
        found.append((m.start(1), inner, "identifier"))
    return True


def _bare_file(m: re.Match[str], found: _Found) -> bool:
    value = m.group(0)
    # "Node.js" and friends are products, not files.
    found.append((m.start(), value, "entity" if _JS_LIB_RE.match(value) else "path"))
    return True


def _dotted(m: re.Match[str], found: _Found) -> bool:
    value = m.group(0)
    if not _identifier_ok(value):
        return False  # "e.g", "i.e", "U.S"
    last = value.rsplit(".", 1)[1].casefold()
    found.append((m.start(), value, "entity" if last in _TLDS else "identifier"))
    return True
