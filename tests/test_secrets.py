"""Tests for graphmem.text.screen: secrets are detected and redacted, ordinary content is not."""

from __future__ import annotations

import base64
import itertools
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from graphmem import FlaggedItem, GraphMemory, RememberBatch, SecretError, ValidationError
from graphmem.cli.app import cli
from graphmem.text.screen import SecretFinding, find_secrets, redact_secrets, screen_fields

# What is tested is the secret screen, not what the model makes of the words.
pytestmark = pytest.mark.embedder("fake")


AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"
    ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)
PEM = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "-----END OPENSSH PRIVATE KEY-----"
)

POSITIVES: list[tuple[str, str, str]] = [
    # (text, expected kind, expected secret value)
    ("aws key AKIAIOSFODNN7EXAMPLE in config", "aws_access_key", "AKIAIOSFODNN7EXAMPLE"),
    ("temporary ASIAY34FZKBOKMUTVV7A creds", "aws_access_key", "ASIAY34FZKBOKMUTVV7A"),
    (f"aws_secret_access_key = {AWS_SECRET}", "aws_secret_key", AWS_SECRET),
    (f'AWS_SECRET_ACCESS_KEY="{AWS_SECRET}"', "aws_secret_key", AWS_SECRET),
    (
        "use ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 for CI",
        "github_token",
        "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
    ),
    (
        "gho_16C7e42F292c6912E7710c838347Ae178B4a",
        "github_token",
        "gho_16C7e42F292c6912E7710c838347Ae178B4a",
    ),
    (
        "ghs_abcdefghijklmnopqrstuvwxyz0123456789",
        "github_token",
        "ghs_abcdefghijklmnopqrstuvwxyz0123456789",
    ),
    (
        "pat github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF",
        "github_token",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF",
    ),
    ("gitlab glpat-xYz12AbC34dEf56GhI78j", "gitlab_token", "glpat-xYz12AbC34dEf56GhI78j"),
    (
        "bot xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        "slack_token",
        "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    ),
    (
        "xoxp-2222222222-3333333333-abcdef123456",
        "slack_token",
        "xoxp-2222222222-3333333333-abcdef123456",
    ),
    (
        "xapp-1-A0123456789-1234567890-abcdef0123",
        "slack_token",
        "xapp-1-A0123456789-1234567890-abcdef0123",
    ),
    (
        "post to https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX now",
        "slack_webhook",
        "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    ),
    (
        "OPENAI_API_KEY is sk-abc123DEF456ghi789JKL012mno",
        "openai_key",
        "sk-abc123DEF456ghi789JKL012mno",
    ),
    ("key sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7z", "openai_key", "sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7z"),
    (
        "claude key sk-ant-api03-abcDEF123456ghiJKL789mnoPQR",
        "anthropic_key",
        "sk-ant-api03-abcDEF123456ghiJKL789mnoPQR",
    ),
    (f"Authorization header token {JWT}", "jwt", JWT),
    (f"key:\n{PEM}\nend", "private_key", PEM),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "private_key", None),
    ("-----BEGIN EC PRIVATE KEY-----\nMHcCAQ\n-----END EC PRIVATE KEY-----", "private_key", None),
    ("-----BEGIN PRIVATE KEY-----\nMIIEvQ truncated", "private_key", None),
    ("password=hunter2", "assignment", "hunter2"),
    ('passwd: "s3cr3t!"', "assignment", "s3cr3t!"),
    ("secret = 'Zq9!xL2#'", "assignment", "Zq9!xL2#"),
    ("token=abc123def456", "assignment", "abc123def456"),
    ("api_key: 'abcd1234efgh'", "assignment", "abcd1234efgh"),
    ("apikey:Zx9kq77", "assignment", "Zx9kq77"),
    ("DB_PASSWORD=Tr0ub4dor&3", "assignment", "Tr0ub4dor&3"),
    ('DB_PASSWORD="correct horse battery staple"', "assignment", "correct horse battery staple"),
    ('{"client_secret": "q8Zr2Lm9Xv"}', "assignment", "q8Zr2Lm9Xv"),
    ("password: letmein", "assignment", "letmein"),
    ("postgres://admin:Sup3rS3cret@db.internal:5432/app", "url_credentials", "Sup3rS3cret"),
    ("redis://:p4ssw0rdXYZ@cache:6379/0", "url_credentials", "p4ssw0rdXYZ"),
    (
        "curl -H 'Authorization: Bearer abcDEF123456ghiJKL789'",
        "bearer_token",
        "abcDEF123456ghiJKL789",
    ),
    (
        "blob 9fK2mQ7xLp3Rt8VzW1nB4cY6hJ0sD5gA2eU here",
        "high_entropy",
        "9fK2mQ7xLp3Rt8VzW1nB4cY6hJ0sD5gA2eU",
    ),
    ("session=8dnW2KD4cw7EUUJECzJu79CQDBuPnrU7lYphySrC_kE.", "assignment", None),
    ("raw 8dnW2KD4cw7EUUJECzJu79CQDBuPnrU7lYphySrC_kE end", "high_entropy", None),
    # Shapes the first scanner missed.
    ("Authorization: Basic YWRtaW46U3VwM3JTM2NyZXQ=", "basic_auth", "YWRtaW46U3VwM3JTM2NyZXQ="),
    ("curl -u admin:Adm1nPa55 https://api.example.com", "cli_password", "Adm1nPa55"),
    ("curl --user=admin:Adm1nPa55 https://x", "cli_password", "Adm1nPa55"),
    ("sshpass -p 'S3cret Pw!' ssh root@10.0.0.2", "cli_password", "S3cret Pw!"),
    ("sshpass -p S3cretPw ssh root@host", "cli_password", "S3cretPw"),
    ("mysql -u root -pS3cretPw shop", "cli_password", "S3cretPw"),
    ("wget --user=bob --password 'Tr0ub4dor&3' http://x", "cli_password", "Tr0ub4dor&3"),
    ("the wifi password is Hunter2Hunter2!", "stated_password", "Hunter2Hunter2!"),
    ("The VPN passphrase was changed to 7rainbow7.", "stated_password", "7rainbow7"),
    ("the api key is 'zq8Lm2Vx'", "stated_password", "zq8Lm2Vx"),
    (
        "Twilio AC0123456789abcdef0123456789abcdef auth 9f86d081884c7d659a2feaa0c55ad015",
        "twilio_auth_token",
        "9f86d081884c7d659a2feaa0c55ad015",
    ),
    ("twilio key SK0123456789abcdef0123456789abcdef", "twilio_key", None),
    ("key AKIA IOSFODNN7EXAMPLE", "aws_access_key", "AKIA IOSFODNN7EXAMPLE"),
    ("key AKIA-IOSFODNN7EXAMPLE", "aws_access_key", "AKIA-IOSFODNN7EXAMPLE"),
    ("stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc", "stripe_key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("whsec_AbCdEfGhIjKlMnOpQrStUvWx1234", "stripe_key", None),
    (
        "https://discord.com/api/webhooks/123456789012345678/AbCdEf_ghIJkl-mnop",
        "discord_webhook",
        None,
    ),
    ("gitlab glrt-xYz12AbC34dEf56GhI78j", "gitlab_token", "glrt-xYz12AbC34dEf56GhI78j"),
    ("AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe", "google_api_key", None),
    ("GOCSPX-AbCdEfGhIjKlMnOpQrStUvWx1234", "google_oauth", None),
    ("hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "huggingface_token", None),
    ("npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "npm_token", None),
    ("https://admin:s3cr3tpw@db.example.com/x", "url_credentials", "s3cr3tpw"),
    ("AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;", "assignment", None),
]


@pytest.mark.parametrize(("text", "kind", "value"), POSITIVES)
def test_detects_secret(text: str, kind: str, value: str | None) -> None:
    findings = find_secrets(text)
    kinds = [f.kind for f in findings]
    assert kind in kinds or (kind == "assignment" and "high_entropy" in kinds), (text, findings)
    if value is not None:
        spans = [text[f.start : f.end] for f in findings]
        assert value in spans, (text, spans)


NEGATIVES = [
    "The API rate limit is 100 requests/min",
    "Use `token` based auth",
    "the password policy requires 12 characters",
    "set DB_PASSWORD in the .env file",
    "password is stored in vault",
    "The password is stored in 1Password, ask Alice",
    "password: <password>",
    "password=***",
    "password=${DB_PASSWORD}",
    "password = os.environ['DB_PASSWORD']",
    "password = os.getenv('DB_PASSWORD')",
    "token = env.GITHUB_TOKEN",
    "token: process.env.API_TOKEN",
    "password=",
    'password: ""',
    "api_key: str",
    "def login(user: str, password: str) -> bool:",
    "password: Optional[str] = None",
    "password = getpass.getpass()",
    "secret: the key lives in vault",
    'secret: "stored in the vault"',
    "token: expired and must be refreshed",
    "max_tokens=4096",
    "token_url = https://auth.example.com/token",
    "Token: DB_TOKEN",
    "password: YOUR_PASSWORD_HERE",
    "api_key = <your-api-key>",
    "pwd = %(password)s",
    "password: {{ vault_pw }}",
    "if password == 'x': return",
    "secret=None",
    "password: null",
    "password: required",
    "api_key=self.api_key",
    "token=request.headers.get('X-Token')",
    "password = settings.DB_PASSWORD",
    "postgres://user:password@localhost/db",
    "postgres://user:${PW}@host/db",
    "Bearer token auth is used for the API",
    "AKIA is the prefix for AWS access keys",
    "the sk-learn package",
    "Use sk-learn-compatible-estimators here",
    "/usr/local/lib/python3.11/site-packages/numpy/core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so",
    "src/components/UserProfileSettingsPanel2/index.tsx",
    "https://github.com/anthropics/graphmem/blob/main/src/graphmem/retrieval/hybrid_search.py",
    "https://example.com/docs/getting-started?page=2&lang=en",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
    "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "id 123e4567-e89b-12d3-a456-426614174000",
    "version 1.2.3-beta.4+build.5678",
    "released 2024-05-01T12:34:56Z",
    "mail alice.smith@example.com",
    "numbers 12345678901234567890123456789012345",
    "AbstractSingletonProxyFactoryBeanImplementationV2",
    "test_find_secrets_does_not_flag_long_snake_case_identifiers_2",
    "graphmem.retrieval.hybrid_search.HybridSearcher",
    "config/settings/production/database/replica_primary_url",
    "my-awesome-project-name-2024-release-candidate-01",
    "The token count was 12000 and the secret sauce is caching",
    "Alice prefers green tea and lives in Berlin.",
    "Run `pytest -q tests/` before pushing.",
    "Deployed v2.3.1 at 14:05 UTC on 2024-03-02; latency p99 = 120ms.",
    # Public or structural strings that look random.
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGq3b8Pq0x6v5cN1pJ8c2Ykq9lQp2mH7xR3sT4uV5wX6 alice@laptop",
    '"integrity": "sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXGOaZPC4XWmZ3SkOQqkZbdMpkYHw=="',
    "md5 9e107d9d372bb6826bd81d3542a419d6",
    "UUID 0f8fad5b-d9cb-469f-a165-70867728950e and f47ac10b58cc4372a5670e02b2c3d479",
    "version 10.24.1-rc.2 of @scope/pkg-name",
    "C:\\Users\\alice\\AppData\\Local\\Programs\\Python\\Python311\\python.exe",
    # Near misses of the new shapes.
    "git push -u origin main:main",
    "docker run -u 1000:1000 image",
    "curl -u $USER:$TOKEN https://x",
    "mkdir -p /tmp/x && mysql --help",
    "the password is stored in vault",
    "the password is 12 characters long",
    "The password is at least 8 characters.",
    "The API key is in the team's 1Password vault.",
    "Basic setup instructions are in the README",
    "Basic auth is enabled on the staging proxy",
    "ASIA PACIFIC TEAM MEETS on monday",
    "we use the Twilio SMS API",
    "docs at https://example.com/a@b",
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_does_not_flag_ordinary_content(text: str) -> None:
    assert find_secrets(text) == []


def test_redact_replaces_only_the_value() -> None:
    assert redact_secrets("password=hunter2 and more") == "password=[REDACTED:assignment] and more"


def test_redact_custom_placeholder_and_multiple() -> None:
    text = "a AKIAIOSFODNN7EXAMPLE b password: hunter2 c"
    assert (
        redact_secrets(text, placeholder="<{kind}>")
        == "a <aws_access_key> b password: <assignment> c"
    )
    assert redact_secrets(text, placeholder="***") == "a *** b password: *** c"


def test_redact_is_identity_without_secrets() -> None:
    text = "Nothing to see here: /etc/hosts, v1.2.3, 3f786850e387550fdab836ed7e6dc881de23001b"
    assert redact_secrets(text) == text


def test_redacted_text_has_no_secrets_left() -> None:
    text = f"token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 and {JWT} and password=hunter2"
    assert find_secrets(redact_secrets(text)) == []


def test_findings_sorted_and_non_overlapping() -> None:
    text = (
        "api_key=sk-abc123DEF456ghi789JKL012mno then AKIAIOSFODNN7EXAMPLE "
        "then token: ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
    )
    findings = find_secrets(text)
    assert [f.kind for f in findings] == ["openai_key", "aws_access_key", "github_token"]
    for a, b in itertools.pairwise(findings):
        assert a.end <= b.start


def test_specific_kind_wins_over_assignment() -> None:
    findings = find_secrets("GITHUB_TOKEN=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789")
    assert findings == [SecretFinding("github_token", 13, 53)]


def test_empty_text() -> None:
    assert find_secrets("") == []
    assert redact_secrets("") == ""


def test_finding_is_frozen() -> None:
    finding = SecretFinding("jwt", 0, 3)
    with pytest.raises(AttributeError):
        finding.kind = "x"  # type: ignore[misc]


# Inputs that sent the first scanner's regexes into exponential or quadratic backtracking
# (minutes for some), plus long runs of every character class the patterns use.
_ADVERSARIAL = {
    "digits": "'1' * 100_000",
    "letters": "'a' * 100_000",
    "upper": "'Q' * 100_000",
    "aA1": "'aA1' * 33_334",
    "upper_then_lone_lower": "'Q' * 60 + 'x1'",
    "digits_then_lone_lower": "'Zz' + '1' * 60 + 'QxQ' + 'a' * 32",
    "upper_runs": "('Q' * 40 + 'x1') * 2_000",
    "wordy": "('Abcdefghij' * 5 + '1234!') * 1_000",
    "slack_60": "'xoxb-' + 'AbCdEfGhIj' * 6",
    "jwt_starts": "'eyJ-' * 25_000",
    "url_scheme_starts": "'a.' * 50_000 + '://@'",
    "assignments": "'password=abc1 ' * 7_000",
    "key_then_spaces": "'password' + ' ' * 100_000 + 'x'",
    "stated": "'password is ' * 8_000",
    "cli_user": "'-u a:' * 20_000",
    "sshpass": "'sshpass ' * 12_000",
    "basic": "'Basic ' + 'QUFB' * 25_000",
    "integrity": "'sha512-' + 'A' * 100_000",
    "pem_public": "'-----BEGIN PUBLIC KEY-----' * 3_000",
    "pem_private": "'-----BEGIN PRIVATE KEY-----' * 3_000",
    "hex_twilio": "'0123456789abcdef' * 6_000 + ' twilio'",
    "aws_prefixes": "'AKIA ' * 20_000",
    "url_creds": "'x://u:' * 16_000 + '@'",
    "camel": "'AbCd' * 25_000",
    # The issue-18 detectors: URL parameters, hex keys on one long line, invisible and
    # look-alike characters, passphrase candidates.
    "url_params": "'https://x.com/p?' + 'a=b&' * 25_000",
    "url_fragments": "'https://x.com/p#' + 'k#' * 50_000",
    "hex_one_line": "('0123456789abcdef' * 2 + ' ') * 3_000",
    "zero_width": "'ghp_' + '\\u200b' * 100_000",
    "cyrillic_in_latin": "'a\\u0440' * 50_000",
    "escaped_underscores": "'\\\\_' * 50_000",
    "passphrases": "'password: ' + 'word ' * 20_000",
    "password_keys": "'pw: a ' * 15_000",
}


@pytest.mark.slow  # seconds of adversarial text; fast: the labelled and ordinary-content cases
def test_scanning_is_bounded_on_adversarial_inputs() -> None:
    # A subprocess with a generous timeout guards against a hang without timing anything:
    # each input took from seconds to minutes (one never finished) with the old regexes; a
    # linear scanner does all of them in about a second.
    script = textwrap.dedent(
        f"""
        from graphmem.text.screen import find_secrets, redact_secrets
        for name, expr in {_ADVERSARIAL!r}.items():
            text = eval(expr)
            redact_secrets(text)
            find_secrets(text)
        print("done")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "done"


def test_screen_fields_refuses_secrets_anywhere() -> None:
    token = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
    cases = [
        {"tags": ["ok", token]},
        {"metadata": {"a": {"b": [1, f"x {token}"]}}},
        {"metadata": {token: "value"}},
        {"file_paths": ["postgres://app:Sup3rS3cret@db/app"]},
    ]
    for fields in cases:
        with pytest.raises(SecretError) as info:
            screen_fields(fields, redact=False, identifiers={"tags"})
        assert info.value.kinds
        assert token not in str(info.value) and "Sup3rS3cret" not in str(info.value)


def test_screen_fields_redacts_text_but_never_identities() -> None:
    token = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
    out = screen_fields(
        {"content": f"use {token}", "metadata": {"k": [f"t {token}"]}, "n": 3, "none": None},
        redact=True,
    )
    assert out == {
        "content": "use [REDACTED:github_token]",
        "metadata": {"k": ["t [REDACTED:github_token]"]},
        "n": 3,
        "none": None,
    }
    with pytest.raises(SecretError, match=r"^tags looks like") as info:
        screen_fields({"tags": [token]}, redact=True, identifiers={"tags"})
    assert "redact=True" not in str(info.value)
    with pytest.raises(SecretError, match="metadata"):
        screen_fields({"metadata": {token: "v"}}, redact=True)


# ------------------------------------------------------------------ issue 18: misses and URL ids

GITHUB = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
HEX64 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

ISSUE_MISSES: list[tuple[str, str]] = [
    # (text, the secret it holds): most passed the old screen unflagged; the Docker token and
    # the capability URLs (a key in the query string) were caught and must stay caught.
    ("DB_PASS=Xk8q2Lm9vR", "Xk8q2Lm9vR"),
    ("export REDIS_PASS=s3cr3tPw", "s3cr3tPw"),
    ("pw: hunter2", "hunter2"),
    ("PW=Tr0ub4dor", "Tr0ub4dor"),
    ("password: correct horse battery staple", "correct horse battery staple"),
    (
        "my wifi passphrase is purple monkey dishwasher elephant.",
        "purple monkey dishwasher elephant",
    ),
    (HEX64, HEX64),
    (f"the signing secret:\n{HEX64}\n", HEX64),
    (f"here is the api key {HEX64[:40]}", HEX64[:40]),
    (f"token {GITHUB[:12]}\u200b{GITHUB[12:]}", f"{GITHUB[:12]}\u200b{GITHUB[12:]}"),
    (f"{GITHUB[:8]}\u00ad{GITHUB[8:20]}\u2060{GITHUB[20:]}", None),
    (GITHUB.replace("p", "\u0440", 1), GITHUB.replace("p", "\u0440", 1)),  # Cyrillic er
    ("".join(chr(ord(c) + 0xFEE0) for c in GITHUB), None),  # full-width forms
    ("ghp\\_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", None),  # Markdown-escaped underscore
    ("https://maps.googleapis.com/maps/api/js?key=Zx8Lq2Mn5Vb7Kc9Xw3Rt", "Zx8Lq2Mn5Vb7Kc9Xw3Rt"),
    (f"https://b.s3.amazonaws.com/f.pdf?X-Amz-Expires=60&X-Amz-Signature={HEX64}", HEX64),
    ("https://a.blob.core.windows.net/c/f?sv=2022-11-02&sp=r&sig=Zx8Lq2Mn5Vb7Kc9Xw3RtQp%3D", None),
    ("https://example.com/cb#access_token=Zx8Lq2Mn5Vb7Kc9Xw3RtQp4", "Zx8Lq2Mn5Vb7Kc9Xw3RtQp4"),
    ("password: dckr_pat_QfMnjESK8cyTT6FTQ2tXbEeTubs", "dckr_pat_QfMnjESK8cyTT6FTQ2tXbEeTubs"),
]


@pytest.mark.parametrize(("text", "secret"), ISSUE_MISSES)
def test_catches_what_the_old_screen_missed(text: str, secret: str | None) -> None:
    findings = find_secrets(text)
    assert findings, text
    spans = [text[f.start : f.end] for f in findings]
    if secret is not None:
        assert any(secret in span for span in spans), (text, spans)
    # Redaction removes the whole secret, invisible characters and look-alikes included.
    redacted = redact_secrets(text)
    assert find_secrets(redacted) == []
    if secret is not None:
        assert secret not in redacted


# Texts from ordinary chat history (LongMemEval) that the old screen flagged, and their kin.
URL_IDS_AND_PROSE = [
    "https://docs.google.com/document/d/1qk4uZJQ3RPLpZkGUc3sQwS2LQ3QwS2LQ3QwS2LQ/edit",
    "[Template](https://docs.google.com/spreadsheets/d/1tVvXq6h4lQrQG6oR7s8t9u8v6w5x4y3z2/copy).",
    "https://drive.google.com/file/d/1m0IMDHougJJrFA6O9uvVUGoDUFEZk6lC/view?usp=share\\_link",
    "https://www.semanticscholar.org/paper/Attention-Vaswani/204e3073870fae3d05bcbc2f6a8e263d9b72e776",
    "https://github.com/pallets/flask/commit/3f786850e387550fdab836ed7e6dc881de23001b",
    "(<https://www.cambridge.org/core/journals/x/article/effects/8F1023EC3D4382C4817E4970D0B9EB68>)",
    "YouTube playlist: <https://www.youtube.com/playlist?list=PLKI1h_nAkaQoDzGe4_pk-NCk8KsbQdiyc>",
    "https://clarksullivan.box.com/s/5p34hdruycidmqt7c1iuin466l8gvb9o",
    "https://x.com/?_gac=1.1147.1607.Cj0KCQiA2af-BRDzARIsAIVQUOdNiV5qT\\_0YS1w4gKgpaTrSKxbqsipzwnWWzk",
    "https://example.com/reset?hotkey=ctrl&sortkey=name",
    "url = f'{base}/api?key={api_key}&token={token}'",
    "return redirect(f'{new\\_password\\_url}?uid={uidb64}&token={token}')",
    '$url = "https://x.com/mp/collect?measurement_id={$measurement_id}&api_secret={$api_secret}";',
    "$publicKeyCredential = $server->createAndCheckAttestation($_POST, $creationOptions);",
    "credentials.yml\ncredentials:\n  credential1:\n    api\\_key: \n    email: user1@example.com",
    "GOOGLE_APPLICATION_CREDENTIALS=/app/credentials/credentials.yml",
    "volumes:\n  - ./credentials:/app/credentials",
    "Since you mentioned ribs, I'll share a secret: **dry brining**. A dry brine is salt.",
    "Boarding pass: gate 12",
    "Day pass: $20 at the gate",
    "password: must be at least twelve characters long",
    "Her passphrase is something only she would know",
    'range:["'
    + "Y2JVSG81V2sxcmNHRlpWM1J5VFVaU1ZscEhSbE5XYlRrMldWVmtSMVl4U25KV2FrNVhVbXhh" * 4
    + '"]',
    "Пароль от вайфая знает только мама — «Брат», 1997 год.",
    "git checkout 3f786850e387550fdab836ed7e6dc881de23001b",
    f"sha256: {HEX64}",
]


def test_hex_ids_in_fields_are_not_keys() -> None:
    # A LangGraph key is uuid4().hex; a metadata key can say the value is a digest.
    uuid_hex = "3f2a9c1d0b7e4a55b1c2d3e4f5a6b7c8"
    assert find_secrets(uuid_hex) == []
    assert screen_fields({"metadata": {"key": uuid_hex, "commit": HEX64[:40]}}, redact=False)
    with pytest.raises(SecretError):
        screen_fields({"metadata": {"note": HEX64}}, redact=False)


@pytest.mark.parametrize("text", URL_IDS_AND_PROSE)
def test_url_ids_and_prose_are_not_secrets(text: str) -> None:
    assert find_secrets(text) == [], [(f.kind, text[f.start : f.end]) for f in find_secrets(text)]


def _labelled() -> list[dict[str, object]]:
    path = Path(__file__).parent / "data" / "secrets_labelled.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


LABELLED = _labelled()


@pytest.mark.parametrize(
    "row",
    [r for r in LABELLED if not r.get("known_miss")],
    ids=lambda r: f"{r['label']}-{r['category']}",
)
def test_labelled_set(row: dict[str, object]) -> None:
    # tests/data/make_secrets_labelled.py writes the set (bench/secret_screen.py measures it).
    text = str(row["text"])
    findings = find_secrets(text)
    if row["label"] == "clean":
        assert findings == [], [(f.kind, text[f.start : f.end]) for f in findings]
        return
    assert findings, text
    if row["secret"] is not None:
        assert any(str(row["secret"]) in text[f.start : f.end] for f in findings)


def test_spans_of_a_normalised_text_point_into_the_original() -> None:
    text = f"café “x” then {GITHUB[:10]}\u200b{GITHUB[10:]} and pw: hunter2 ✓"
    kinds = {f.kind: text[f.start : f.end] for f in find_secrets(text)}
    assert kinds == {"github_token": f"{GITHUB[:10]}\u200b{GITHUB[10:]}", "assignment": "hunter2"}
    assert redact_secrets(text) == (
        "café “x” then [REDACTED:github_token] and pw: [REDACTED:assignment] ✓"
    )


def test_a_base64_blob_is_data_unless_it_encodes_a_secret() -> None:
    pem = (
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n"
    )
    wrapped = base64.b64encode(pem.encode() * 4).decode()
    assert [f.kind for f in find_secrets(f"tls.crt: x\ndata {wrapped}")] == ["encoded_secret"]
    image = base64.b64encode(bytes(range(256)) * 4).decode()
    assert find_secrets(f"data:image/png;base64,{image}") == []


# ------------------------------------------------------------------ batches with flagged items

BATCH = [
    {"content": "The staging cluster runs Kubernetes 1.29"},
    {"content": f"CI pushes with {GITHUB}"},
    {"content": "Alice prefers green tea"},
    {"content": "Releases are cut on Fridays", "tags": [f"{GITHUB[:9]}\u200b{GITHUB[9:]}"]},
    {"content": "DB_PASS=Xk8q2Lm9vR on the replica"},
]


def _contents(mem: GraphMemory) -> list[str]:
    return sorted(m.content for m in mem.memories(limit=None))


def _no_secret_in(value: object) -> None:
    text = repr(value)
    assert "aBcDeFgHiJ" not in text and "Xk8q2Lm9vR" not in text


def test_remember_many_skips_flagged_items_and_reports_each(mem: GraphMemory) -> None:
    results = mem.remember_many(BATCH)
    assert isinstance(results, RememberBatch)
    assert [r.memory.content for r in results] == [BATCH[0]["content"], BATCH[2]["content"]]
    assert results.flagged == [
        FlaggedItem(index=1, action="skipped", fields=["content"], kinds=["github_token"]),
        FlaggedItem(index=3, action="skipped", fields=["tags"], kinds=["github_token"]),
        FlaggedItem(index=4, action="skipped", fields=["content"], kinds=["assignment"]),
    ]
    _no_secret_in(results.flagged)
    assert _contents(mem) == sorted([BATCH[0]["content"], BATCH[2]["content"]])


def test_remember_many_redacts_what_it_can(mem: GraphMemory) -> None:
    results = mem.remember_many(BATCH, on_secret="redact")
    assert [f.action for f in results.flagged] == ["redacted", "skipped", "redacted"]
    assert [f.index for f in results.flagged] == [1, 3, 4]  # a tag cannot be redacted
    assert _contents(mem) == sorted(
        [
            BATCH[0]["content"],
            "CI pushes with [REDACTED:github_token]",
            BATCH[2]["content"],
            "DB_PASS=[REDACTED:assignment] on the replica",
        ]
    )


def test_remember_many_refuse_names_every_item_and_stores_nothing(mem: GraphMemory) -> None:
    with pytest.raises(SecretError) as info:
        mem.remember_many(BATCH, on_secret="refuse")
    message = str(info.value)
    assert "item 1: content" in message and "item 3: tags" in message and "item 4" in message
    assert info.value.kinds == ["assignment", "github_token"]
    assert info.value.fields == ["content", "tags"]
    _no_secret_in(message)
    assert _contents(mem) == []


def test_a_dry_run_reports_flagged_items_too(mem: GraphMemory) -> None:
    plan = mem.remember_many(BATCH, dry_run=True)
    assert [f.index for f in plan.flagged] == [1, 3, 4] and len(plan) == 2
    assert _contents(mem) == []


def test_single_remember_refuses_by_default(mem: GraphMemory) -> None:
    with pytest.raises(SecretError):
        mem.remember("the wifi pw: correct horse battery staple")
    stored = mem.remember("DB_PASS=Xk8q2Lm9vR on the replica", on_secret="redact")
    assert stored.memory.content == "DB_PASS=[REDACTED:assignment] on the replica"
    with pytest.raises(ValidationError, match="on_secret"):
        mem.remember("fine", on_secret="skip")
    with pytest.raises(ValidationError, match="on_secret"):
        mem.remember_many([{"content": "fine"}], on_secret="ignore")


@pytest.mark.parametrize(
    "fields",
    [
        {"project": f"{GITHUB[:9]}\u200b{GITHUB[9:]}"},
        {"session_id": HEX64},
        {"id": GITHUB},
        {"triggers": ["DB_PASS=Xk8q2Lm9vR"]},
        {"file_paths": ["https://x.example/a?sig=Zx8Lq2Mn5Vb7Kc9Xw3RtQp"]},
        {"metadata": {"env": {"pw": "hunter2"}}},
        {"metadata": {f"{GITHUB[:9]}\u200b{GITHUB[9:]}": 1}},
    ],
)
def test_every_stored_field_is_screened(mem: GraphMemory, fields: dict[str, object]) -> None:
    with pytest.raises(SecretError) as info:
        mem.remember("Releases are cut on Fridays", **fields)
    assert info.value.fields == [next(iter(fields))]
    assert _contents(mem) == []


def test_an_error_message_never_echoes_a_secret(mem: GraphMemory) -> None:
    # The id is malformed (a soft hyphen), so validation refuses it before the screen runs.
    with pytest.raises(ValidationError) as info:
        mem.remember("Releases are cut on Fridays", id=f"{GITHUB[:9]}\u00ad{GITHUB[9:]}")
    assert "REDACTED" in str(info.value)
    _no_secret_in(str(info.value))


def _write_jsonl(path: Path, items: list[dict[str, object]]) -> Path:
    # A blank line between items: reports name file lines, not item numbers.
    path.write_text("\n\n".join(json.dumps(i) for i in items) + "\n", encoding="utf-8")
    return path


def test_cli_import_skips_and_reports_lines(store_path: Path, tmp_path: Path) -> None:
    path = _write_jsonl(tmp_path / "notes.jsonl", BATCH)
    runner = CliRunner()
    out = runner.invoke(cli, ["-d", str(store_path), "import", str(path), "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert report["imported"] == 2
    assert [(f["line"], f["action"], f["fields"]) for f in report["flagged"]] == [
        (3, "skipped", ["content"]),
        (7, "skipped", ["tags"]),
        (9, "skipped", ["content"]),
    ]
    text = runner.invoke(cli, ["-d", str(store_path), "import", str(path)])
    assert "notes.jsonl:3: skipped: content looks like it holds a secret (github_token)" in (
        text.stderr
    )
    _no_secret_in(out.output + text.output + text.stderr)


def test_cli_import_on_secret_refuse_and_redact(store_path: Path, tmp_path: Path) -> None:
    path = _write_jsonl(tmp_path / "notes.jsonl", BATCH)
    runner = CliRunner()
    refused = runner.invoke(
        cli, ["-d", str(store_path), "import", str(path), "--on-secret", "refuse"]
    )
    assert refused.exit_code != 0 and "item 1: content" in refused.output + refused.stderr
    csv_path = tmp_path / "notes.csv"
    csv_path.write_text(
        'content,tags\n"multi\nline note",x\n' + f'"token {GITHUB}",y\nplain note,z\n',
        encoding="utf-8",
    )
    out = runner.invoke(
        cli, ["-d", str(store_path), "import", str(csv_path), "--on-secret", "redact", "--json"]
    )
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert report["imported"] == 3
    assert report["flagged"] == [
        {"line": 4, "index": 1, "action": "redacted", "fields": ["content"],
         "kinds": ["github_token"]}
    ]  # fmt: skip
    with GraphMemory(store_path) as mem:
        assert "token [REDACTED:github_token]" in _contents(mem)


def test_a_client_renumbers_flagged_items_across_its_requests(
    served_mem: Any, client_of: Any
) -> None:
    # The client's batching and the wire, not other processes: a client in this process.
    with client_of(served_mem) as client:
        assert client.owner["pid"] == os.getpid()
        results = client.remember_many(BATCH, batch_size=2)
        assert [f.index for f in results.flagged] == [1, 3, 4]
        assert isinstance(results.flagged[0], FlaggedItem)
        assert len(results) == 2
        with pytest.raises(SecretError) as info:
            client.remember_many(BATCH, on_secret="refuse")
        assert info.value.fields == ["content", "tags"]
        assert client.stats().memories == 2
    assert served_mem.stats().memories == 2


# Found by an attack: secrets a user may well type, stored verbatim before.
@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("mein Passwort für den Router ist Sommer2024!", "stated_password", "Sommer2024"),
        ("la contraseña del wifi es Xk9#mP2$vL", "stated_password", "Xk9#mP2$vL"),
        ("The alarm code for the office is 4821", "access_code", "4821"),
        ("door PIN: 5519#", "access_code", "5519#"),
        ("GHP_O7JPRBGUMXXY9B4BZWOZ648JJNUFD7UACNWI is the CI token", "github_token", None),
        ("GitHub token (wrapped): ghp_aB3dE5fG7hJ9kL1m\nN3pQ5rS7tU9vW1xY3z5A", "github_token", None),
        ("Wallet recovery phrase: abandon ability able about above absent absorb abstract "
         "absurd abuse access accident", "recovery_phrase", None),
    ],
)  # fmt: skip
def test_detects_secrets_typed_in_other_ways(text: str, kind: str, value: str | None) -> None:
    findings = find_secrets(text)
    assert any(f.kind == kind for f in findings), findings
    if value is not None:
        assert any(text[f.start : f.end] == value for f in findings), findings


@pytest.mark.parametrize(
    "text",
    [
        "The HTTP status code is 404 when the page is gone",
        "error code: 4821 means the disk is full",
        "Pin the version to 2024 so the build is reproducible",
        "The recovery phrase is kept in the safe, never in chat",
        "Das Passwort ist im Tresor, nicht hier",
        "la contraseña es segura y larga",
        "ghp_ is the prefix of GitHub's personal access tokens",
    ],
)
def test_the_new_rules_leave_prose_alone(text: str) -> None:
    assert find_secrets(text) == []
