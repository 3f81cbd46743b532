"""Tests of the pure rules engine: golden logs, properties, `buzzerbox replay`."""
