"""One door to the outside (issue 40): every place the product's code could open a connection
is listed here, by reading the code (its syntax tree, every production package), and each
must be one of the known doors below. A new `httpx.get`, `urllib.request.urlopen`,
`requests`, a socket or a `PoliteClient(...)` made anywhere else fails this test: fetch
through configuration.outbound instead (its clients refuse internal redirects, keep a total
deadline, bound bodies while they stream and mask secrets).

Before, `gpuprice fx import URL` fetched with its own `httpx.Client(follow_redirects=True)`,
and the history imports and the daily FX rate made their own PoliteClients with internal
redirects allowed: a Wayback capture that redirected to a loopback service was stored."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("scrapers", "warehouse", "recommender", "configuration", "pipelines", "dashboard",
            "demo", "gpuprice")  # fmt: skip

# Calls that open a connection (or make what opens one), by qualified name; a name ending in
# "." is a whole module: any call into it.
OPENERS = (
    "httpx.Client", "httpx.AsyncClient", "httpx.HTTPTransport", "httpx.AsyncHTTPTransport",
    "httpx.get", "httpx.post", "httpx.put", "httpx.patch", "httpx.delete", "httpx.head",
    "httpx.options", "httpx.request", "httpx.stream",
    "urllib.request.", "http.client.", "requests.", "urllib3.", "aiohttp.", "httpcore.",
    "ftplib.", "smtplib.", "telnetlib.", "websockets.", "xmlrpc.client.",
    "socket.socket", "socket.create_connection", "socket.fromfd", "socket.socketpair",
    "asyncio.open_connection", "asyncio.open_unix_connection",
    "apprise.Apprise", "huggingface_hub.hf_hub_download", "huggingface_hub.snapshot_download",
    "huggingface_hub.HfApi",
    "scrapers.http.PoliteClient",
)  # fmt: skip

# Every door there is, with how many calls it has and why it is one.
DOORS: dict[tuple[str, str], tuple[int, str]] = {
    ("configuration/outbound.py", "scrapers.http.PoliteClient"): (
        3, "the factory: sources, archives, downloads"),
    ("scrapers/http.py", "httpx.Client"): (1, "the polite client's own transport"),
    ("warehouse/derive/notify.py", "apprise.Apprise"): (
        1, "notification targets: the operator's own choice, internal ones included"),
    ("configuration/recommender_feed.py", "socket.create_connection"): (
        1, "whether the Hugging Face Hub answers, before huggingface_hub retries for 26 s"),
    ("configuration/recommender_feed.py", "huggingface_hub.hf_hub_download"): (
        3, "a model's config.json for the --model id the user names (huggingface_hub's own "
           "client; HF_HUB_OFFLINE turns it off)"),
    ("demo/autostart.py", "socket.socket"): (
        1, "whether something answers on a port `gpuprice up` is about to serve on"),
}  # fmt: skip


def _names(tree: ast.AST) -> dict[str, str]:
    """Local name -> qualified name, from every import of the module (function-level too)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    names[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _annotations(tree: ast.AST) -> list[ast.expr]:
    """Every type annotation of the module: naming a type opens nothing."""
    notes: list[ast.expr | None] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = node.args
            every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                     arguments.vararg, arguments.kwarg]  # fmt: skip
            notes += [a.annotation for a in every if a is not None] + [node.returns]
        elif isinstance(node, ast.AnnAssign):
            notes.append(node.annotation)
    return [note for note in notes if note is not None]


def _dotted(node: ast.expr) -> list[str] | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.insert(0, node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *parts]


def opened(path: Path) -> list[str]:
    """The qualified names of what opens a connection in one file: each call of an opener,
    and each reference to one handed on (``pool.submit(socket.create_connection, …)``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names = _names(tree)
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    typed = {id(n) for note in _annotations(tree) for n in ast.walk(note)}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute | ast.Name) or id(node) in inner | typed:
            continue  # a part of a longer name (the whole is looked at), or a type
        if not isinstance(node.ctx, ast.Load):
            continue
        parts = _dotted(node)
        if parts is None or parts[0] not in names:
            continue
        qualified = ".".join([names[parts[0]], *parts[1:]])
        if any(qualified == o or (o.endswith(".") and qualified.startswith(o)) for o in OPENERS):
            found.append(qualified)
    return found


def doors() -> Counter[tuple[str, str]]:
    found: Counter[tuple[str, str]] = Counter()
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for name in opened(path):
                found[(path.relative_to(ROOT).as_posix(), name)] += 1
    return found


def test_every_connection_is_opened_through_a_known_door() -> None:
    found = doors()
    new = {door: n for door, n in found.items() if door not in DOORS}
    assert not new, (
        f"connections opened outside the one door: {new}; fetch through "
        "configuration.outbound (source_client, archive_client, download_client) instead"
    )
    counted = {door: n for door, n in found.items() if n != DOORS[door][0]}
    assert not counted, f"a known door is called more or fewer times than listed: {counted}"
    gone = set(DOORS) - set(found)
    assert not gone, f"listed doors no longer in the code (remove them from DOORS): {gone}"


def test_the_scan_sees_every_way_of_spelling_a_connection(tmp_path: Path) -> None:
    """The check itself can fail: each spelling below is found."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import httpx\nimport httpx as h\nfrom httpx import Client\nimport urllib.request\n"
        "from urllib import request\nimport socket\nfrom socket import create_connection\n"
        "from scrapers.http import PoliteClient\nimport requests\n"
        "def f():\n    import http.client\n    http.client.HTTPSConnection('x')\n"
        "httpx.get('u'); h.Client(); Client(); urllib.request.urlopen('u'); request.urlopen('u')\n"
        "socket.socket(); create_connection(('h', 1)); PoliteClient(None, respect_robots=False)\n"
        "requests.Session(); httpx.URL('u'); socket.getaddrinfo('h', 1)\n"
        "pool.submit(socket.create_connection, ('h', 1))\n",
        encoding="utf-8",
    )
    assert sorted(opened(sample)) == sorted(
        [
            "http.client.HTTPSConnection",
            "httpx.get",
            "httpx.Client",
            "httpx.Client",
            "urllib.request.urlopen",
            "urllib.request.urlopen",
            "socket.socket",
            "socket.create_connection",
            "scrapers.http.PoliteClient",
            "requests.Session",
            "socket.create_connection",  # handed on, not called
        ]
    )  # httpx.URL and getaddrinfo open nothing
