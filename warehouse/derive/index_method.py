"""What the price index's method v1 is made of, named once: its version, its key, and the
kind of data (the tier the public pays is warehouse.public's, the one rule every reader uses;
docs/INDEX.md says it in words, with the plain SQL query that reproduces it)."""

from __future__ import annotations

METHOD = "v1"
METHODS = (METHOD,)  # a later version is added beside it; v1 stays reproducible
# The rent modes the index has a series for (yearly terms are too few to be a market).
MODES = ("hourly", "daily", "weekly", "monthly", "bare_metal_monthly", "spot")
REAL, SIMULATED = "real", "SIMULATED"
KINDS = (REAL, SIMULATED)
CHANGE_DAYS = (1, 7, 30)
PUBLISHED, WITHHELD = "published", "withheld"
MIN_PLATFORMS = "min_platforms"  # the gate's name, stored with a withheld day
# Two recomputations of an unchanged figure may differ in the last bits of a double (the
# chain's product is taken over a different run of days); a revision needs more than this.
RELATIVE_TOLERANCE = 1e-9


def kind_sql(alias: str = "o") -> str:
    """An offer row's kind of data, as the index stores it."""
    return f"CASE WHEN {alias}.simulated THEN '{SIMULATED}' ELSE '{REAL}' END"


# The seeds' published prices are outside figures the index is checked against, never
# one of its platforms. They are stored under "<source>-published"
# (warehouse.ingest.reference.PUBLISHED_SUFFIX, not imported: `gpuprice index` imports this
# module and answers within a second; tests/warehouse/derive/test_index.py checks the two).
PUBLISHED_SUFFIX = "-published"
NOT_PUBLISHED = f"source NOT LIKE '%{PUBLISHED_SUFFIX}'"
MODES_SQL = ", ".join(f"'{mode}'" for mode in MODES)
