"""How the warehouse opens, from a deployment's environment: DuckDB's memory limit and the
DuckLake (``GPUPRICE_DUCKLAKE*``, ``AWS_*``, ``GPUPRICE_S3_ENDPOINT``).

Pure functions of the environment they are given (configuration passes ``os.environ``): the
warehouse itself never reads the process's environment. A bad value raises
:class:`WarehouseEnvironmentError` saying what to fix; configuration reports it as a
ConfigError.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from warehouse.store.config import (
    DEFAULT_MEMORY_LIMIT,
    DEFAULT_S3_REGION,
    DUCKLAKE_DATA_PATH_ENV,
    DUCKLAKE_ENV,
    MEMORY_LIMIT_ENV,
    S3_ENDPOINT_ENV,
    LakeTarget,
    S3Access,
    WarehouseConfig,
    s3_bucket,
)


class WarehouseEnvironmentError(ValueError):
    """An environment variable of the warehouse holds a value it cannot open with."""


# DuckDB's buffer manager keeps what a connection read cached up to 80 % of RAM by default:
# over five years of history a pipeline run peaked at 0.6-1.3 GB. A bounded cache (DuckDB
# spills beyond it to <file>.tmp) keeps it near 430 MB, of which ~270 MB is Python and
# Dagster; 192MB gave 490 MB (docs/PERFORMANCE.md). Steps that need more for a backlog take
# it themselves (warehouse.store.db.with_more_memory).
# DuckDB itself reads "-5MB" as 80 % of RAM and "1 TB x" as 1 TB, so the size is checked
# here: a number and a unit, at least 64 MB (below that DuckDB cannot even migrate).
_MEMORY = re.compile(r"^(\d+(?:\.\d+)?)\s*(KB|MB|GB|TB|KIB|MIB|GIB|TIB)$", re.IGNORECASE)
_UNIT_MB = {"KB": 1e-3, "MB": 1, "GB": 1e3, "TB": 1e6, "KIB": 1.024e-3, "MIB": 1.048576}
_UNIT_MB |= {"GIB": 1073.741824, "TIB": 1099511.627776}

# The warehouse on DuckLake (docs/SCALING.md) instead of the DuckDB file: the ATTACH string of
# its catalog ("ducklake:postgres:dbname=lake host=pg ..." or "ducklake:/path/x.ducklake"),
# where its Parquet files go, and optionally the catalog's schema (several lakes in one
# PostgreSQL database). Environment only, like the memory limit: it is per deployment, and a
# PostgreSQL connection string may hold a password.
DUCKLAKE_SCHEMA_ENV = "GPUPRICE_DUCKLAKE_SCHEMA"
_SCHEMA_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
# An s3:// data path (AWS S3, or any S3-compatible store: MinIO, R2, GCS's interoperability
# API) reads its keys from the variables every AWS tool reads, and the store's address from
# GPUPRICE_S3_ENDPOINT when it is not AWS. Keys only: an IAM role's credential chain needs
# DuckDB's aws extension, which the product does not load.
S3_KEY_ENV, S3_SECRET_ENV, S3_TOKEN_ENV = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
)
S3_REGION_ENVS = ("AWS_REGION", "AWS_DEFAULT_REGION")
# A bucket name as the S3-compatible stores allow them (AWS: 3-63 of a-z 0-9 . -; older AWS
# buckets and GCS also upper case and _): catches "s3://", "s3:///x" and stray spaces.
_BUCKET = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{1,220}[A-Za-z0-9]$")
_REMOTE_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def warehouse_config(environ: Mapping[str, str]) -> WarehouseConfig:
    """How the warehouse opens, from ``environ``."""
    return WarehouseConfig(memory_limit=memory_limit(environ), lake=lake_target(environ))


def memory_limit(environ: Mapping[str, str]) -> str:
    """DuckDB's memory limit for every warehouse connection."""
    value = environ.get(MEMORY_LIMIT_ENV, "").strip() or DEFAULT_MEMORY_LIMIT
    match = _MEMORY.match(value)
    if not match or float(match.group(1)) * _UNIT_MB[match.group(2).upper()] < 64:
        raise WarehouseEnvironmentError(
            f"{MEMORY_LIMIT_ENV}={value!r} is not a memory limit DuckDB can work in: use a size "
            f"of at least 64MB such as 256MB or 1GB, or unset it for {DEFAULT_MEMORY_LIMIT}"
        )
    return value


def lake_target(environ: Mapping[str, str]) -> LakeTarget | None:
    """The configured DuckLake, or None for the DuckDB file (the default)."""
    catalog = environ.get(DUCKLAKE_ENV, "").strip()
    data_path = environ.get(DUCKLAKE_DATA_PATH_ENV, "").strip() or None
    schema = environ.get(DUCKLAKE_SCHEMA_ENV, "").strip() or None
    if not catalog:
        if data_path or schema:
            raise WarehouseEnvironmentError(
                f"{DUCKLAKE_DATA_PATH_ENV} / {DUCKLAKE_SCHEMA_ENV} are set but {DUCKLAKE_ENV} "
                "is not: set it to the lake's catalog (ducklake:postgres:... or "
                "ducklake:/path/catalog.ducklake), or unset them to use the DuckDB file"
            )
        return None
    if not catalog.startswith("ducklake:") or catalog == "ducklake:":
        raise WarehouseEnvironmentError(
            f"{DUCKLAKE_ENV}={catalog!r} is not a DuckLake catalog: use "
            "'ducklake:postgres:dbname=... host=...' or 'ducklake:/path/catalog.ducklake', "
            "or unset it to use the DuckDB file"
        )
    if schema is not None and not _SCHEMA_NAME.match(schema):
        raise WarehouseEnvironmentError(
            f"{DUCKLAKE_SCHEMA_ENV}={schema!r} is not a schema name: letters, digits and _ "
            "(at most 63), not starting with a digit"
        )
    remote = _REMOTE_SCHEME.match(data_path or "")
    if remote and remote.group(1) != "s3":
        raise WarehouseEnvironmentError(
            f"{DUCKLAKE_DATA_PATH_ENV}={data_path!r}: the data path is a local directory or "
            f"s3://bucket/prefix/ (any S3-compatible store, with {S3_ENDPOINT_ENV}); "
            f"{remote.group(1)}:// is not supported"
        )
    s3 = _s3_access(environ, data_path) if remote and data_path else None
    return LakeTarget(catalog, data_path, schema, s3)


def _endpoint_problem(value: str) -> str | None:
    """What is wrong with ``value`` as an S3 endpoint URL, or None."""
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 -- the property raises ValueError for a port that is not one
    except ValueError as exc:
        return str(exc)
    if parts.scheme not in ("http", "https"):
        return "the scheme must be http:// or https://"
    if not parts.hostname:
        return "no host"
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return "a path, query or fragment: the bucket goes in the data path"
    if parts.username or parts.password:
        return f"user info: the keys go in {S3_KEY_ENV} and {S3_SECRET_ENV}"
    return None


def _s3_endpoint(value: str) -> tuple[str, bool]:
    """``GPUPRICE_S3_ENDPOINT`` (``http://host:port`` or ``https://host[:port]``) as DuckDB's
    ENDPOINT (host[:port]: DuckDB takes no scheme, but USE_SSL) and whether to use TLS."""
    problem = _endpoint_problem(value)
    if problem:
        shown = re.sub(r"//[^/@]*@", "//***@", value)  # a key written into the URL: not shown
        raise WarehouseEnvironmentError(
            f"{S3_ENDPOINT_ENV}={shown!r} is not an S3 endpoint ({problem}): use the store's "
            "address such as http://127.0.0.1:9000 or https://minio.internal:9000, or unset "
            "it for AWS S3"
        )
    parts = urlsplit(value)
    return parts.netloc, parts.scheme == "https"


def _s3_access(environ: Mapping[str, str], data_path: str) -> S3Access:
    """The S3 settings of an s3:// ``data_path``; an error naming what is missing or
    malformed (never showing the secret)."""
    if not _BUCKET.match(s3_bucket(data_path)):
        raise WarehouseEnvironmentError(
            f"{DUCKLAKE_DATA_PATH_ENV}={data_path!r} does not name an S3 bucket: use "
            "s3://bucket/prefix/ (the bucket: letters, digits, '.', '-' and '_')"
        )
    key_id = environ.get(S3_KEY_ENV, "").strip()
    secret = environ.get(S3_SECRET_ENV, "").strip()
    if not (key_id and secret):
        missing = " and ".join(
            n for n, v in ((S3_KEY_ENV, key_id), (S3_SECRET_ENV, secret)) if not v
        )
        raise WarehouseEnvironmentError(
            f"{DUCKLAKE_DATA_PATH_ENV} is {data_path} but {missing} "
            f"{'is' if ' and ' not in missing else 'are'} not set: give the object store's "
            f"access key in {S3_KEY_ENV} and {S3_SECRET_ENV} (and {S3_ENDPOINT_ENV} for a store "
            "that is not AWS S3)"
        )
    region = next(
        (v for n in S3_REGION_ENVS if (v := environ.get(n, "").strip())), DEFAULT_S3_REGION
    )
    token = environ.get(S3_TOKEN_ENV, "").strip() or None
    endpoint_value = environ.get(S3_ENDPOINT_ENV, "").strip()
    endpoint, use_ssl = _s3_endpoint(endpoint_value) if endpoint_value else (None, True)
    return S3Access(key_id, secret, region, token, endpoint, use_ssl)
