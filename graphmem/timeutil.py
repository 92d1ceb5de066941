"""Timestamps: graphmem stores naive UTC (Kùzu TIMESTAMP) and returns aware UTC datetimes."""

from __future__ import annotations

from datetime import date, datetime, timezone

from .errors import ValidationError

UTC = timezone.utc


def now() -> datetime:
    """The current time as naive UTC, the form the database stores."""
    return datetime.now(UTC).replace(tzinfo=None)


def to_db(value: datetime | date | str | None, *, field: str = "time") -> datetime | None:
    """Accept a datetime (aware or naive UTC), a date or an ISO string; return naive UTC."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            value = datetime.fromisoformat(text)
        except ValueError as exc:
            raise ValidationError(f"{field}: '{value}' is not an ISO 8601 date or time") from exc
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    raise ValidationError(
        f"{field}: expected a datetime, date or ISO string, got {type(value).__name__}"
    )


def from_db(value: datetime | None) -> datetime | None:
    """Attach UTC to a stored timestamp."""
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def epoch(value: datetime | None) -> float:
    """Seconds since the epoch for a stored (naive UTC) timestamp; NaN for None."""
    if value is None:
        return float("nan")
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.timestamp()
