"""Fixtures of the security tests: those of the fault tests (a data folder, and
everything a test opened closed or killed at its end)."""

from faults.conftest import data, tidy

__all__ = ["data", "tidy"]
