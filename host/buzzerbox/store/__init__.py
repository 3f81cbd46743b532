"""The box's SQLite event log, replay from it, and the formats a game is exported in."""

from buzzerbox.store.export import bgstats_link, to_bgstats, to_csv, to_jsonl
from buzzerbox.store.log import EventLog, GameSummary, Progress, StoredEvent, StoreError

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
