"""Helpers of tests/deploy/test_ducklake_s3.py, run in the DuckLake environment
(``.venv-ducklake``: moto, boto3 and DuckDB 1.5.5 with httpfs), where the product's
warehouse code can attach a DuckLake; the tests themselves run in the product's ``.venv``.

- ``serve BUCKET``: a moto S3 server on a free loopback port that checks every request's
  signature against an access key made in its IAM (INITIAL_NO_AUTH_ACTION_COUNT = 0 after
  setting up), with BUCKET created. Prints one JSON line (endpoint, key id, secret), then
  serves until its standard input closes.
- ``list BUCKET``: the keys in BUCKET, as JSON (the credentials from the environment).
- ``product HOME``: the product's own steps on the warehouse configured in the environment:
  two days of demo pages parsed and loaded, derived, and read back by the dashboard's and the
  CLI's reader functions; prints what it read as JSON.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.request
from datetime import date
from pathlib import Path

DAY = date(2026, 9, 4)


def serve(bucket: str) -> None:
    import boto3
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    # Set up unauthenticated (moto's default), then require a valid signature from here on.
    setup = {"endpoint_url": endpoint, "region_name": "us-east-1"}
    setup |= {"aws_access_key_id": "setup", "aws_secret_access_key": "setup"}
    iam = boto3.client("iam", **setup)
    iam.create_user(UserName="gpuprice-lake")
    policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*",
                                                       "Resource": "*"}]}  # fmt: skip
    iam.put_user_policy(
        UserName="gpuprice-lake", PolicyName="lake", PolicyDocument=json.dumps(policy)
    )
    key = iam.create_access_key(UserName="gpuprice-lake")["AccessKey"]
    boto3.client("s3", **setup).create_bucket(Bucket=bucket)
    request = urllib.request.Request(
        f"{endpoint}/moto-api/reset-auth",
        data=b"0",
        method="POST",
        headers={"Content-Type": "text/plain"},
    )
    urllib.request.urlopen(request, timeout=10).read()
    print(
        json.dumps(
            {"endpoint": endpoint, "key_id": key["AccessKeyId"], "secret": key["SecretAccessKey"]}
        ),
        flush=True,
    )
    try:
        sys.stdin.read()  # until the test closes it (or ends)
    finally:
        server.stop()


def list_keys(bucket: str) -> None:
    import boto3

    s3 = boto3.client(
        "s3", endpoint_url=os.environ["GPUPRICE_S3_ENDPOINT"], region_name="us-east-1"
    )
    keys: list[str] = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        keys += [item["Key"] for item in page.get("Contents", [])]
    print(json.dumps(keys))


def product(home: Path) -> None:
    from configuration.settings import load_settings
    from tests.support.seeded_warehouse import seed_demo_history
    from warehouse.derive.metrics import derive
    from warehouse.read.metrics import latest_breakeven
    from warehouse.read.prices import latest_offers
    from warehouse.store.db import read_frame

    # As every entry point does: the settings hand the warehouse its configuration (the lake).
    warehouse = load_settings(None, home=home).warehouse
    seed_demo_history(warehouse, DAY, days=2)
    summary = derive(warehouse)
    counts = read_frame(
        warehouse,
        "SELECT (SELECT count(*) FROM offer) AS offers, "
        "(SELECT count(*) FROM spot_quote) AS quotes, "
        "(SELECT count(*) FROM raw_page) AS pages, "
        "(SELECT count(*) FROM breakeven) AS breakeven",
    ).row(0, named=True)
    print(
        json.dumps(
            counts
            | {
                "derived_snapshots": summary.offer_snapshots,
                "latest_offers": latest_offers(warehouse).height,
                "breakeven_rows": latest_breakeven(warehouse).height,
                "warehouse_file_written": warehouse.path.exists(),
            }
        )
    )


if __name__ == "__main__":
    commands = {"serve": serve, "list": list_keys, "product": lambda home: product(Path(home))}
    commands[sys.argv[1]](sys.argv[2])
