"""Tests for graphmem.text.conflict: deterministic conflict signals between close statements."""

from __future__ import annotations

import pytest

from graphmem.text.conflict import ConflictSignal, detect_conflict, has_correction_cue

NEGATION_PAIRS = [
    # (new, old)
    ("Never use tabs for indentation", "Use tabs for indentation"),
    ("Use tabs for indentation", "Never use tabs for indentation"),
    ("Don't use the legacy API for new code", "Use the legacy API for new code"),
    ("Do not use the legacy API for new code", "Use the legacy API for new code"),
    ("Avoid the ORM for bulk inserts", "Use the ORM for bulk inserts"),
    ("Caching is disabled in production", "Caching is enabled in production"),
    ("Caching is not enabled in production", "Caching is enabled in production"),
    ("The parser does not support YAML anchors", "The parser supports YAML anchors"),
    ("The parser doesn’t support YAML anchors", "The parser supports YAML anchors"),
    ("The service can't write to S3", "The service can write to S3"),
    ("We no longer deploy on Fridays", "We deploy on Fridays"),
]


@pytest.mark.parametrize(("new", "old"), NEGATION_PAIRS)
def test_negation_flip(new: str, old: str) -> None:
    signal = detect_conflict(new, old)
    assert signal is not None and signal.kind == "negation", signal
    assert signal.detail.startswith("negation flip:")


VALUE_PAIRS = [
    # (new, old, old value shown, new value shown)
    ("The API rate limit is 200/min", "The API rate limit is 100/min", "100/min", "200/min"),
    ("The service uses Python 3.11", "The service uses Python 3.10", "3.10", "3.11"),
    ("The web server listens on port 9090", "The web server listens on port 8080", "8080", "9090"),
    ("port 9090", "port 8080", "8080", "9090"),
    ("The default branch is master", "The default branch is main", "main", "master"),
    ("The backend uses MySQL", "The backend uses PostgreSQL", "PostgreSQL", "MySQL"),
    ("Alice prefers coffee in the morning", "Alice prefers tea in the morning", "tea", "coffee"),
    ("The request timeout is 60 seconds", "The request timeout is 30 seconds", "30", "60"),
    ("Bob's favourite editor is Emacs", "Bob's favourite editor is Vim", "Vim", "Emacs"),
    ("The max upload size is 50 MB", "The max upload size is 10 MB", "10", "50"),
    ("Use version v2 of the client SDK", "Use version v1 of the client SDK", "v1", "v2"),
    (
        "The staging database lives on db2.internal",
        "The staging database lives on db1.internal",
        "db1.internal",
        "db2.internal",
    ),
    (
        "The API rate limit is 200 requests/min per key",
        "The API rate limit is 100 requests/min",
        "100",
        "200",
    ),
    (
        "Correction: the nightly backup job starts at 3am UTC",
        "The nightly backup starts at 1am",
        "1am",
        "3am UTC",
    ),
]


@pytest.mark.parametrize(("new", "old", "old_value", "new_value"), VALUE_PAIRS)
def test_value_change(new: str, old: str, old_value: str, new_value: str) -> None:
    signal = detect_conflict(new, old)
    assert signal is not None and signal.kind == "value", signal
    assert signal.detail.startswith("value changed: ")
    assert f"'{old_value}' → '{new_value}'" in signal.detail
    assert signal.sure


def test_value_detail_format() -> None:
    signal = detect_conflict("The API rate limit is 200/min", "The API rate limit is 100/min")
    assert signal == ConflictSignal("value", "value changed: '100/min' → '200/min'")


def test_two_changed_slots_are_not_a_conflict() -> None:
    # Two changed slots usually mean another subject ("service 3 on port 8003" vs "service 4 on
    # port 8004"); superseding would hide a memory that is still true, so both are kept.
    assert (
        detect_conflict(
            "Service number 4 listens on port 8004", "Service number 3 listens on port 8003"
        )
        is None
    )
    assert (
        detect_conflict(
            "The cache TTL is 5 minutes and the max size is 2 GB",
            "The cache TTL is 10 minutes and the max size is 1 GB",
        )
        is None
    )


CORRECTION_PAIRS = [
    ("The team switched to pnpm for the frontend monorepo", "The frontend monorepo uses yarn"),
    ("Update: the CI pipeline now runs on GitHub Actions", "The CI pipeline runs on Jenkins"),
    ("Correction: the on-call rotation moved to the SRE team", "The platform team owns on-call"),
    ("The old deploy script is deprecated, use the Makefile", "Deploy with the old deploy script"),
]


@pytest.mark.parametrize(("new", "old"), CORRECTION_PAIRS)
def test_correction_cue(new: str, old: str) -> None:
    signal = detect_conflict(new, old)
    assert signal is not None and signal.kind == "correction", signal
    assert signal.detail.startswith("correction cue: ")


def test_negation_checked_before_value() -> None:
    signal = detect_conflict("The parser does not support YAML 1.2", "The parser supports YAML 1.2")
    assert signal is not None and signal.kind == "negation"


NO_CONFLICT_PAIRS = [
    ("The API rate limit is 100 req/min", "The API rate limit is 100 requests per minute"),
    ("The API rate limit is 100 requests/min per key", "The API rate limit is 100 requests/min"),
    ("The timeout is 30s", "The timeout is 30 seconds"),
    ("The batch size is 1,000 rows", "The batch size is 1000 rows"),
    ("The retry limit is three", "The retry limit is 3"),
    ("Uses Python 3.11", "Uses Python v3.11"),
    ("We store sessions in the DB", "We store sessions in the database"),
    ("the default branch is MAIN.", "The default branch is main"),
    ("Alice likes green tea", "Bob likes green tea"),
    ("Always use tabs for indentation", "Use tabs for indentation"),
    ("Don't use tabs for indentation", "Never use tabs for indentation"),
    ("The service doesn't support YAML", "The service does not support YAML"),
    ("The service is disabled", "The service is not enabled"),
    ("Never commit secrets to the repository", "Do not commit secrets to the repository"),
    ("Deploy with make deploy from the infra directory", "The frontend is written in TypeScript"),
    (
        "The deploy script lives in infra/ and runs terraform apply with the prod workspace",
        "The deploy script is in infra/",
    ),
    ("Tabs are used for indentation in Go code", "Go code uses tabs for indentation"),
    ("The backend uses PostgreSQL 15 for storage", "The backend stores data in PostgreSQL 15"),
    ("Alice's favourite colour is blue", "Alice’s favourite colour is blue"),
    ("Actually I had lunch at noon", "The database migration runs nightly at 2am"),
    ("Use tabs for indentation", "Use tabs for indentation"),
    ("", "Use tabs for indentation"),
]


@pytest.mark.parametrize(("new", "old"), NO_CONFLICT_PAIRS)
def test_no_conflict(new: str, old: str) -> None:
    assert detect_conflict(new, old) is None


@pytest.mark.parametrize(
    ("text", "cue"),
    [
        ("Actually, the port is 9090", "actually"),
        ("We no longer use Redis", "no longer"),
        ("The service now uses gRPC", "now uses"),
        ("Use ruff instead of flake8", "instead of"),
        ("Jenkins is not used anymore", "anymore"),
        ("The default changed to 30s", "changed to"),
        ("We switched to uv last week", "switched to"),
        ("The repo moved to GitLab", "moved to"),
        ("Correction: it is 8080", "correction:"),
        ("UPDATE: new endpoint", "update:"),
        ("The v1 endpoint is deprecated", "deprecated"),
        ("From now on, squash merges only", "from now on"),
    ],
)
def test_has_correction_cue(text: str, cue: str) -> None:
    assert has_correction_cue(text) == cue


@pytest.mark.parametrize(
    "text",
    [
        "The rate limit is 100 requests/min",
        "Alice prefers green tea",
        "Now is a good time to deploy",
        "The update script runs nightly",
        "Move fast and fix things",
        "Replacement parts are in stock",
        "The correction factor is 1.2",
    ],
)
def test_no_correction_cue(text: str) -> None:
    assert has_correction_cue(text) is None


def test_signal_is_frozen() -> None:
    signal = ConflictSignal("value", "x")
    with pytest.raises(AttributeError):
        signal.kind = "negation"  # type: ignore[misc]


def test_a_different_subject_mid_sentence_is_not_a_conflict() -> None:
    assert (
        detect_conflict(
            "Run migrations for billing-worker on Mondays",
            "Run migrations for profile-worker on Mondays",
        )
        is None
    )


def test_a_number_changing_with_its_subject_is_not_a_conflict() -> None:
    assert (
        detect_conflict(
            "The p99 latency budget for auth-worker is 690 ms.",
            "The p99 latency budget for ingest-worker is 204 ms.",
        )
        is None
    )


def test_corrections_about_another_named_thing_do_not_conflict() -> None:
    assert (
        detect_conflict(
            "Correction: search-service actually listens on port 8000, not 6380.",
            "Correction: search-api actually listens on port 9092, not 9000.",
        )
        is None
    )
    assert (
        detect_conflict(
            "Do not run database migrations for gateway-api on a Monday.",
            "Do not run database migrations for checkout-api on a Friday.",
        )
        is None
    )


# The same words with another sign, comparison, currency, order of numbers, path or "only":
# an attack on the write path found each read as a duplicate (the correction merged into the
# old memory, which recall kept returning).
MARKED = [
    ("The freezer alarm threshold is -5 C", "The freezer alarm threshold is 5 C"),
    ("The server timezone offset is -5 hours", "The server timezone offset is +5 hours"),
    ("Set the log level offset to 3", "Set the log level offset to −3"),
    ("The service needs Python >= 3.10", "The service needs Python <= 3.10"),
    ("The subscription price is $5", "The subscription price is €5"),
    ("The read/write ratio is 3:1", "The read/write ratio is 1:3"),
    ("The final score was 10-2", "The final score was 2-10"),
    ("Admins can delete projects", "Only admins can delete projects"),
    ("Application logs go to /var/log/app", "Application logs go to /var/logs/app"),
    ("The balance is -$50", "The balance is $50"),
    ("Data lives in /var/lib/App", "Data lives in /var/lib/app"),
]


@pytest.mark.parametrize(("old", "new"), MARKED)
def test_a_changed_mark_is_another_value_not_a_duplicate(old: str, new: str) -> None:
    from graphmem.text import slots
    from graphmem.text.conflict import restates

    assert not restates(new, old) and not slots.paraphrase(new, old)
    signal = detect_conflict(new, old)
    assert signal is not None and signal.kind == "value"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The build takes 5-10 minutes", "The build takes 5–10 minutes"),  # an en dash
        ("Backups start at 02:00 UTC", "Backups start at 02:00 UTC."),
        ("The API limit is 100 requests per minute", "The API limit is 100 req/min"),
        # A review found these read as contradictions: the same said otherwise.
        ("Docs are in /srv/docs", "Docs are in /srv/docs/"),
        ("Config is at `/etc/teamtool`", "Config is at /etc/teamtool"),
        ("The flow is build -> test -> release", "The flow is build → test → release"),
        ("Mail <alice@example.com> for access", "Mail alice@example.com for access"),
        ("The service needs Python >= 3.10", "The service needs Python ≥ 3.10"),
        ("The budget is 1,000-2,000 dollars", "The budget is 1000-2000 dollars"),
        ("We won the final 102-99", "We won the final 102 to 99"),
        ("The release is on 2024-01-05", "The release is on 2024/01/05"),
        ("Add 1/2 cup of sugar", "Add ½ cup of sugar"),
        ("Revenue grew +5% last quarter", "Revenue grew 5% last quarter"),
        ("It broke only last week", "It broke just last week"),
        ("The split is 80/20", "The split is 80:20"),
    ],
)
def test_the_same_marks_written_otherwise_still_restate(old: str, new: str) -> None:
    from graphmem.text.conflict import restates

    assert restates(new, old)
