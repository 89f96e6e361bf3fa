"""The one error an invalid configuration raises."""

from __future__ import annotations


class ConfigError(ValueError):
    """The configuration is invalid; the message says which key and what is allowed."""
