"""The entry point of the process an ad-hoc query runs in (``python -m
warehouse.read.sql_child_main FD``; warehouse.read.sql_child starts it and says why): receive
the job, attach the warehouse, cap the address space, say "ready", run the query, send the
answer."""

from __future__ import annotations

import json
import os
import resource
import sys
import threading
from multiprocessing.connection import Connection

from warehouse.read.sql import answer
from warehouse.read.sql_child import ORPHAN_GRACE_S, READY, Job, headroom


def _virtual_size() -> int:
    """The bytes of address space this process maps (Linux)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")


def _cap_address_space(memory_limit: str) -> None:
    cap = _virtual_size() + headroom(memory_limit)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def main(fd: int) -> None:
    """The child: run the job the parent sends over ``fd`` and send back the answer."""
    with Connection(fd) as parent:
        job: Job = parent.recv()

        def ready() -> None:
            _cap_address_space(job.warehouse.memory_limit)
            orphaned = threading.Timer(job.timeout_s + ORPHAN_GRACE_S, os._exit, args=(3,))
            orphaned.daemon = True
            orphaned.start()
            parent.send_bytes(READY)

        parent.send_bytes(json.dumps(answer(job, ready)).encode())


if __name__ == "__main__":
    main(int(sys.argv[1]))
