"""The box's SQLite event log, replay from it, and the formats a game is exported in."""

from buzzerbox.store.eventlog import EventLog, GameSummary, Progress, StoredEvent, StoreError
from buzzerbox.store.export import bgstats_link, to_bgstats, to_csv, to_jsonl

__all__ = [
    "EventLog",
    "GameSummary",
    "Progress",
    "StoreError",
    "StoredEvent",
    "bgstats_link",
    "to_bgstats",
    "to_csv",
    "to_jsonl",
]
