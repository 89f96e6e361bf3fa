"""What the warehouse needs to know to open itself: DuckDB's memory limit and, when the
warehouse is a DuckLake instead of the DuckDB file, where the lake is; and the price index's
gates (``[index]`` in gpuprice.toml), which the derive step publishes the index with.

The warehouse never reads the environment or the TOML itself: configuration passes the
environment to :func:`warehouse.store.environment.warehouse_config`, and each entry point
puts the result in its one :class:`warehouse.store.handle.Warehouse`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# The deployment's environment variables, named in messages that say what to fix
# (warehouse.store.environment parses them from the environment configuration passes).
DUCKLAKE_ENV = "GPUPRICE_DUCKLAKE"
DUCKLAKE_DATA_PATH_ENV = "GPUPRICE_DUCKLAKE_DATA_PATH"
S3_ENDPOINT_ENV = "GPUPRICE_S3_ENDPOINT"
MEMORY_LIMIT_ENV = "GPUPRICE_DUCKDB_MEMORY_LIMIT"

DEFAULT_MEMORY_LIMIT = "128MB"
DEFAULT_S3_REGION = "us-east-1"  # AWS's default, and what MinIO and moto sign with


@dataclass(frozen=True)
class S3Access:
    """How DuckDB reaches an s3:// data path: its keys, region and (not AWS) endpoint."""

    key_id: str
    secret: str = field(repr=False)  # never in a repr, a message or a log
    region: str = DEFAULT_S3_REGION
    session_token: str | None = field(default=None, repr=False)
    endpoint: str | None = None  # host[:port] of an S3-compatible store; None: AWS S3
    use_ssl: bool = True

    def describe(self) -> str:
        """Where, for messages: the endpoint and the key's id, never the secret."""
        scheme = "https" if self.use_ssl else "http"
        where = f"{scheme}://{self.endpoint}" if self.endpoint else f"AWS S3 ({self.region})"
        return f"{where} with key {self.key_id}"


@dataclass(frozen=True)
class LakeTarget:
    """Where a DuckLake warehouse is: its catalog, its data path, its catalog schema, and
    for an s3:// data path how to reach it."""

    catalog: str = field(repr=False)  # a PostgreSQL connection string may hold a password
    data_path: str | None = None
    metadata_schema: str | None = None
    s3: S3Access | None = None

    @property
    def postgres(self) -> bool:
        return self.catalog.startswith("ducklake:postgres:")

    def describe(self) -> str:
        """The catalog without a password, for messages and logs."""
        shown = re.sub(r"(password\s*=\s*)\S+", r"\1***", self.catalog, flags=re.IGNORECASE)
        return shown + (f" (schema {self.metadata_schema})" if self.metadata_schema else "")


def s3_bucket(data_path: str) -> str:
    """The bucket of an ``s3://bucket/prefix/`` data path."""
    return data_path.removeprefix("s3://").split("/", 1)[0]


@dataclass(frozen=True)
class IndexGates:
    """When the price index publishes a day's value (docs/INDEX.md, "Withholding"): at least
    ``min_platforms`` platforms quote the card and mode that day; otherwise the value is
    withheld and the failing gate stored."""

    min_platforms: int = 3

    def as_json(self) -> str:
        return f'{{"min_platforms": {self.min_platforms}}}'


@dataclass(frozen=True)
class WarehouseConfig:
    """How every connection to a warehouse opens: DuckDB's ``memory_limit``
    (its cache, spilled to disk beyond it) and the DuckLake, or None for the DuckDB file;
    and the price index's gates (configuration puts ``[index]`` of the TOML here)."""

    memory_limit: str = DEFAULT_MEMORY_LIMIT
    lake: LakeTarget | None = None
    index: IndexGates = field(default_factory=IndexGates)
