"""The secret screen's patterns: the credential formats it knows, the guards that keep ordinary
text (identifiers, paths, numbers, placeholders) from looking like a secret, and the entropy
bounds of a random-looking value. ``screen.py`` scans with them.

Every pattern is written so that its work grows linearly with the text (no nested or
overlapping quantifiers, no match start inside a run the pattern could also have started
earlier): any user text reaches the scanner, and a regex that backtracks exponentially would
let one string stall a write.
"""

from __future__ import annotations

import re

# Ordered by priority: when spans overlap, the earlier (more specific) kind wins. A pattern
# starts with a look-behind for its own body characters rather than ``\b`` where the body holds
# ``-``: otherwise every ``-`` inside a long run would be a new start, each rescanning the run.
AWS_PREFIXES = ("AKIA", "ASIA", "ABIA", "ACCA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA")
TOKEN_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
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
        "discord_webhook",
        re.compile(r"https://(?:\w+\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]+"),
    ),
    (
        # A key id pasted with a space or dash after the prefix is still the key id.
        "aws_access_key",
        re.compile(r"\b(?:" + "|".join(AWS_PREFIXES) + r")(?:[ \-.]?[A-Z0-9]){16}\b"),
    ),
    (
        "github_token",
        # Any case ("GHP_..." pasted in capitals), and a part of 16 or more (a token the
        # terminal wrapped onto two lines is a secret in both).
        re.compile(
            r"\b(?:(?i:gh[pousr])_[A-Za-z0-9]{16,255}|(?i:github_pat)_[A-Za-z0-9_]{22,255})\b"
        ),
    ),
    (
        "gitlab_token",
        re.compile(r"(?<![\w-])(?:glpat|gldt|glrt|glptt|glcbt|gloas|glft|glsoat)-[\w\-]{20,}"),
    ),
    ("slack_token", re.compile(r"(?<![\w-])(?:xox[abposre]|xapp)-[A-Za-z0-9\-]{10,}")),
    (
        "stripe_key",
        re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9+/]{24,}"),
    ),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}(?![\w-])")),
    ("google_oauth", re.compile(r"\bGOCSPX-[\w\-]{24,}|\bya29\.[\w\-]{20,}")),
    ("twilio_key", re.compile(r"\bSK[0-9a-fA-F]{32}\b")),
    ("sendgrid_key", re.compile(r"\bSG\.[\w\-]{16,32}\.[\w\-]{30,64}")),
    ("npm_token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("pypi_token", re.compile(r"\bpypi-AgE[A-Za-z0-9_\-]{50,}")),
    ("huggingface_token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b")),
    ("digitalocean_token", re.compile(r"\bdo[por]_v1_[a-f0-9]{64}\b")),
    ("shopify_token", re.compile(r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b")),
    ("age_secret_key", re.compile(r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b")),
    ("anthropic_key", re.compile(r"(?<![\w-])sk-ant-[A-Za-z0-9_\-]{20,}")),
    (
        "openai_key",
        re.compile(r"(?<![\w-])sk-(?:proj-|svcacct-|admin-|live-|test-)?[A-Za-z0-9_\-]{20,}"),
    ),
    ("jwt", re.compile(r"(?<![\w-])eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*")),
    # STS session tokens: base64 of a binary blob that starts "!\\n\\torigin_ec" (or older).
    ("aws_session_token", re.compile(r"\b(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdzE)[A-Za-z0-9+/=]{100,}")),
    ("facebook_token", re.compile(r"\bEAA[A-Z][A-Za-z0-9]{90,}\b")),
    ("atlassian_token", re.compile(r"\bATATT3[A-Za-z0-9_\-=]{100,}")),
    ("docker_token", re.compile(r"(?<![\w-])dckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}")),
    # A Telegram bot token: the bot's number, a colon, then 35 characters starting "AA".
    ("telegram_bot_token", re.compile(r"(?<![\w:])\d{8,10}:AA[A-Za-z0-9_\-]{33}(?![\w-])")),
)

# Literal substrings that must occur for a pattern to match: skipping the regex is much
# cheaper than running it over text that cannot contain that kind.
GUARDS: dict[str, tuple[str, ...]] = {
    "private_key": ("PRIVATE KEY",),
    "slack_webhook": ("hooks.slack.com",),
    "discord_webhook": ("/api/webhooks/",),
    "aws_access_key": AWS_PREFIXES,
    "github_token": (
        "ghp_",
        "gho_",
        "ghu_",
        "ghs_",
        "ghr_",
        "github_pat_",
        "GHP_",
        "GHO_",
        "GHU_",
        "GHS_",
        "GHR_",
        "GITHUB_PAT_",
    ),
    "gitlab_token": ("gl",),
    "slack_token": ("xox", "xapp-"),
    "stripe_key": ("_live_", "_test_", "whsec_"),
    "google_api_key": ("AIza",),
    "google_oauth": ("GOCSPX-", "ya29."),
    "twilio_key": ("SK",),
    "sendgrid_key": ("SG.",),
    "npm_token": ("npm_",),
    "pypi_token": ("pypi-AgE",),
    "huggingface_token": ("hf_",),
    "digitalocean_token": ("_v1_",),
    "shopify_token": ("shp",),
    "age_secret_key": ("AGE-SECRET-KEY-1",),
    "anthropic_key": ("sk-ant-",),
    "openai_key": ("sk-",),
    "jwt": ("eyJ",),
    "aws_session_token": ("IQoJb3JpZ2luX2Vj", "FwoGZXIvYXdzE"),
    "facebook_token": ("EAA",),
    "atlassian_token": ("ATATT3",),
    "docker_token": ("dckr_",),
    "telegram_bot_token": (":AA",),
}

KIND_PRIORITY: dict[str, int] = {kind: i for i, (kind, _) in enumerate(TOKEN_PATTERNS)}
KIND_PRIORITY.update(
    {
        "aws_secret_key": 50,
        "twilio_auth_token": 51,
        "url_credentials": 52,
        "basic_auth": 53,
        "bearer_token": 54,
        "cli_password": 55,
        "assignment": 56,
        "stated_password": 57,
        "url_query_credential": 58,
        "url_path_credential": 59,
        "passphrase": 60,
        "access_code": 63,
        "recovery_phrase": 64,
        "hex_key": 61,
        "encoded_secret": 62,
        "high_entropy": 99,
    }
)

# Generic prefixes like "sk-" also start ordinary hyphenated words, so the body must look random.
NEEDS_MIXED_BODY = frozenset(
    {"openai_key", "slack_token", "gitlab_token", "huggingface_token", "facebook_token"}
)

# Key names that hold secrets; the keyword must END the key ("max_tokens" and "token_url" are not
# secrets). Optional quotes around the key cover JSON/YAML.
SECRET_KEY = r"""[a-z0-9_.-]*?
        (?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key
           |secret[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?key|credentials?
           |account[_-]?key|passcode|(?<![a-z0-9])pass|(?<![a-z0-9])pw
           |passwort|kennwort|contrase(?:ñ|n)a|senha|wachtwoord|l(?:ö|o)senord|has(?:ł|l)o
           |salasana|parola|mot[ ]de[ ]passe|пароль|パスワード|密码|密碼|비밀번호)"""
# A dict key (metadata) that names a secret: its string value is one ({"pw": "hunter2"}).
SECRET_KEY_RE = re.compile(r"(?ix)" + SECRET_KEY)
ASSIGNMENT_RE = re.compile(
    r"""(?ix)
    (?<![\w.-])
    (?P<key>"""
    + SECRET_KEY
    + r"""
    )
    ["']?[ \t]*(?<![=!<>:])(?::|=(?!=)|:=)[ \t]*
    (?:
        "(?P<dq>[^"\n]*)"
      | '(?P<sq>[^'\n]*)'
      | `(?P<bq>[^`\n]*)`
      | (?P<bare>[^\s,;'"`)\]}]+)
    )
    """
)
URL_CRED_RE = re.compile(
    r"(?<![a-zA-Z0-9+.\-])[a-zA-Z][a-zA-Z0-9+.\-]*://(?P<user>[^\s:/@]*):(?P<pw>[^\s/@]+)@[\w.\-\[\]]"
)
BEARER_RE = re.compile(r"\bBearer\s+(?P<tok>[A-Za-z0-9_\-.~+/]{16,}=*)")
# HTTP basic auth: base64 of "user:password" (checked by decoding, so "Basic setup" is prose).
BASIC_RE = re.compile(r"\bBasic\s+(?P<tok>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])")
# Passwords on a command line: curl/wget "-u user:pw", "--password=pw", sshpass and mysql "-p".
CLI_PASSWORD_RE = re.compile(
    r"""(?x)
    (?:
        (?<![\w-])(?:-u|--user)(?:[ \t]+|=)?['"]?[^\s:'"]+:(?P<upw>[^\s'"]+)
      | (?<![\w-])--(?:password|passwd|pass)(?:[ \t]+|=)(?P<flag>'[^'\n]*'|"[^"\n]*"|[^\s'"]+)
      | \b(?:sshpass|mysql|mysqldump|mysqladmin)\b[^\n]{0,200}?[ \t]-p[ \t]*
        (?P<dashp>'[^'\n]*'|"[^"\n]*"|[^\s'"-][^\s'"]*)
      # Python's requests: auth=("user", "password").
      | \bauth[ \t]*=[ \t]*\([ \t]*(?:'[^'\n]*'|"[^"\n]*")[ \t]*,[ \t]*
        (?P<tuple>'[^'\n]*'|"[^"\n]*")
    )
    """
)
# A Docker config.json: "auth" holds base64 of "user:password".
DOCKER_AUTH_RE = re.compile(r'"auth"[ \t]*:[ \t]*"(?P<tok>[A-Za-z0-9+/]{8,}={0,2})"')
# A password stated in prose: "the wifi password is Hunter2Hunter2!".
# "the password for the NAS is X", "password for the router: X", "wifi password X" (no
# separator: the value must then look generated). The clause after "for" is at most 40
# characters, so each keyword starts a bounded match.
STATED_RE = re.compile(
    r"""(?ix)
    \b(?:password|passphrase|passcode|passwd|api[ _-]?key|secret[ _-]?key|access[ _-]?token
       |auth[ _-]?token)s?
    (?:[ \t]+(?:for|of|on|to)[ \t]+[^\n:=]{1,40}?(?:[ \t]+(?:is|was)|[ \t]*[=:])
      | [ \t]+(?:is|was) | [ \t]*[=:] | (?P<nosep>))
    (?:[ \t]+(?:now|still|set[ \t]+to|changed[ \t]+to))?[ \t]+
    (?P<val>'[^'\n]*'|"[^"\n]*"|`[^`\n]*`|[^\s'"`]+)
    """
)
# The same in other languages ("mein Passwort für den Router ist Sommer2024!", "la contraseña
# del wifi es Xk9#mP2$vL"): the password word, at most 40 characters naming what it opens, then
# the language's "is" (or ":" / "="). Its value must look generated, as a bare English one.
STATED_ABROAD_RE = re.compile(
    r"""(?ix)
    (?<![\w])(?:passwort|kennwort|contrase(?:ñ|n)a|clave|senha|wachtwoord|l(?:ö|o)senord
       |has(?:ł|l)o|salasana|parola[ ]d'ordine|mot[ ]de[ ]passe|пароль|パスワード|密码|密碼
       |비밀번호)
    (?:[^\n:=]{0,40}?[ \t](?:ist|lautet|es|est|é|è|is|är|on|jest|era|war)|[ \t]*[=:])
    [ \t]+(?P<val>'[^'\n]*'|"[^"\n]*"|[^\s'"`]+)
    """
)
# A code that opens something ("the alarm code for the office is 4821", "door PIN: 5519"):
# its digits are the secret, however short.
CODE_RE = re.compile(
    r"""(?ix)
    \b(?:(?:alarm|door|gate|safe|lock|locker|garage|entry|building|keypad|access|alarm[ ]panel)
         [ \t]+(?:code|pin)|pin(?:[ \t]+(?:code|number))?|passcode)
    (?:[ \t]+(?:for|of|on|to)[ \t]+[^\n:=]{1,40}?)?
    (?:[ \t]+(?:is|was)|[ \t]*[=:])[ \t]+(?P<val>\d{4,8}[#*]?)(?![\d.,:/-]\d)
    """
)
# A wallet's recovery phrase: its words are the key.
RECOVERY_PHRASE_RE = re.compile(
    r"""(?ix)
    \b(?:recovery|seed|mnemonic|backup|secret)[ \t]+(?:phrase|words)\b[^\n:]{0,30}[:=][ \t]*
    (?P<val>(?:[a-z]{3,8}[ \t]+){11,23}[a-z]{3,8})\b
    """
)
# A user and password given as a pair: "creds alice:Zx8q2", "Login: alice / Zx8q2".
PAIR_RE = re.compile(
    r"""(?ix)
    \b(?:creds?|credentials|logins?)\b[ \t]*[:=]?[ \t]+[\w.@+-]{1,64}
    (?::|[ \t]*/[ \t]*)(?P<val>[^\s'"`]{6,})
    """
)
# Twilio: an account SID names the account; a 32-hex string beside it is its auth token.
TWILIO_SID_RE = re.compile(r"\bAC[0-9a-f]{32}\b")
HEX32_RE = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{32}(?![0-9A-Za-z])")
# Public material that looks random but is safe to store: SSH public keys, PEM public keys
# and certificates, subresource-integrity hashes (npm lockfiles).
PUBLIC_RE = re.compile(
    r"""(?x)
    (?:ssh-(?:rsa|dss|ed25519|ed448)|ecdsa-sha2-nistp(?:256|384|521)
       |sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)
       [ \t]+AAAA[A-Za-z0-9+/]+={0,3}
  | -----BEGIN[ ](?:[A-Z0-9]+[ ])*(?:PUBLIC[ ]KEY|CERTIFICATE)-----[A-Za-z0-9+/=\s]*?
    -----END[ ](?:[A-Z0-9]+[ ])*(?:PUBLIC[ ]KEY|CERTIFICATE)-----
  | \bsha(?:1|256|384|512)-[A-Za-z0-9+/]{20,}={0,2}
    """
)
HIGH_ENTROPY_RE = re.compile(r"[A-Za-z0-9+/_\-]{32,}={0,2}")

# Values that are placeholders, templates or references rather than real secrets.
PLACEHOLDER_RE = re.compile(
    r"""(?ix)^(?:
        <[^>]*> | \[[^\]]*\] | \$\{[^}]*\}? | \$\(.*\)? | \$[a-z_][a-z0-9_]* | %\(?[a-z_]*\)?s?
      | \{\{.*\}\}? | \{\$?[a-z0-9_.]*\}? | \*+ | x{3,} | \.{3,} | … | -+ | _+ | \?+ | \#+
      | (?:your|my)[_-]?[a-z_-]* | (?:the|some|a|an)[_-][a-z_-]*
      | .*(?:_here|-here|placeholder|redacted|changeme).* | example | dummy | sample
      | none | null | nil | true | false | undefined | empty | required | optional | string | str
      | bytes | int | secret | password | passwd | pass | token | apikey | api_key | key | value
      | hidden | masked | todo | tbd | n/a | na | foo | bar | baz | test | xxx | abc | 123 | 1234
    )$"""
)
# Code references: env lookups, attribute access, calls, subscripts, ALL_CAPS env-var names.
REFERENCE_RE = re.compile(
    r"""(?x)^(?:
        (?:os\.environ|os\.getenv|getenv|process\.env|env|ENV|environ|settings|config|conf|cfg
           |self|secrets|vault|request|req|args|kwargs|params|ctx|context)\b.*
      | [A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(.*\)?|\[.*\]?)?
      | [A-Za-z_]\w*\(.*\)?
      | [A-Za-z_]\w*\[.*\]?
      | \$[A-Za-z_]\w*(?:->|::|\.|\[|\().*
      | (?:~|\.{1,2})?/[\w.\-/]*
      | [A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+
      | [A-Z][a-z]+(?:\[.*\]?)?
    )$"""
)
AWS_SECRET_VALUE_RE = re.compile(r"^[A-Za-z0-9/+]{40}$")
# Numbers, amounts and sizes ("$20", "15%", "2k") are not passwords.
NUMBER_RE = re.compile(r"^[+-]?[$€£¥]?\d+(?:[.,]\d+)*[%kKmM]?$")
LOWER_WORD_RE = re.compile(r"^[a-z]+$")
PROSE_AFTER_RE = re.compile(r"[ \t]+\w{2,}\b")
HEX_RE = re.compile(r"^[0-9a-fA-F\-]+$")
SPLIT_SEP_RE = re.compile(r"[/_\-+.=]+")
# A lowercase letter standing alone between capitals or digits: random keys have them,
# CamelCase identifiers do not.
LONE_LOWER_RE = re.compile(r"(?<![a-z])[a-z](?![a-z])")
# Words ("Hybrid", "search") then up to three digits. Each word ends where its lowercase run
# ends, so the text splits into words one way only and a failed match cannot backtrack through
# every split.
WORDY_SEGMENT_RE = re.compile(r"^(?:[A-Z]?[a-z]{2,}(?![a-z]))+\d{0,3}$|^[A-Z]{3,}$")
DIGITS_RE = re.compile(r"^\d+$")
VOWELS = frozenset("aeiouAEIOU")

COMMON_VALUE_WORDS = frozenset(
    str.split(
        "is are was were be the a an in on at of for to from with by via as it its and or not no "
        "stored kept saved managed handled rotated set required needed missing invalid expired "
        "valid revoked used see check read"
    )
)

# The screen's rules are not Config fields: what counts as a secret must not be weakened per
# handle (a secret is never stored, whoever writes it).
MIN_VALUE_LEN = 4
ENTROPY_MIN_LEN = 32
ENTROPY_THRESHOLD = 4.2
ENTROPY_THRESHOLD_LOWER = 3.9
