"""`gpuprice parse SOURCE FILE [--cloud CLOUD | --url URL]`: the rows a saved page or answer
parses into, as listed, one JSON object per line. No warehouse is opened or written.

Some answers do not say everything their rows need, because the request said it: a SkyPilot
catalog names its cloud only in its path (``.../aws/vms.csv``), and 优云智算 prices the machine
setup the request asked for (in the request URL's fragment). ``--cloud`` and ``--url`` give
that context for a file saved elsewhere.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from configuration.schema import FxConfig
from gpuprice.cli_common import ConfigOption, err, settings_or_exit

if TYPE_CHECKING:
    from configuration.settings import Settings
    from scrapers.fx import FxRates
    from scrapers.rows import Row
    from scrapers.sources import SourceAdapter

_SKYPILOT = "skypilot"
# Sources whose answer prices what the request asked for, and an example of such a request.
_ASKED_IN_URL = {
    "compshare": "https://api.compshare.cn/?Action=GetCompShareInstancePrice"
    "#GpuType=4090&Gpu=1&Zone=cn-wlcb-01",
}


def parse(
    source: Annotated[
        str,
        typer.Argument(
            help="Source name, e.g. jygpu, smm, vastai, runpod, lambda, skypilot, matpool, "
            'autodl, gpushare, ppio, compshare, or one configured with adapter = "generic".'
        ),
    ],
    file: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="A saved page or API answer.")
    ],
    cloud: Annotated[
        str | None,
        typer.Option(
            help="skypilot only: the cloud the catalog is for (aws, gcp, lambda, do ...), as if "
            "fetched from the configured catalog (.../catalogs/<version>/<cloud>/vms.csv). "
            "Default: the folder the file is in, so .../aws/vms.csv needs none."
        ),
    ] = None,
    url: Annotated[
        str | None,
        typer.Option(
            help="The request the answer came from, for sources that price what they were "
            "asked for: for compshare the request URL, ending with the machine priced "
            "(#GpuType=4090&Gpu=1&Zone=cn-wlcb-01). Default: the file's own file:// URL."
        ),
    ] = None,
    config: ConfigOption = None,
) -> None:
    """Print the rows a saved page parses into, one JSON object per line (help: _HELP)."""
    from scrapers.fx import FxRates
    from scrapers.parse import read_page, summary
    from scrapers.rows import ParseError
    from scrapers.sources.skypilot import UnknownCloud

    settings = settings_or_exit(config)
    adapter = _adapter(settings, source)
    told = _told_url(settings, adapter, file, cloud, url)
    fetched_at = datetime.fromtimestamp(file.stat().st_mtime, UTC).replace(tzinfo=None)
    try:
        page = read_page(adapter, file.read_bytes(), told, fetched_at)
        rows = page.accepted(settings.file.parse.max_rejected_share)
    except UnknownCloud as exc:
        err.print(f"[red]parse error: {escape(str(exc))}; or give --cloud NAME[/red]")
        raise typer.Exit(1) from None
    except ParseError as exc:
        hint = _ASKED_IN_URL.get(source) if url is None else None
        tail = f"; give the request with --url, e.g. '{hint}'" if hint else ""
        err.print(f"[red]parse error: {escape(str(exc) + tail)}[/red]")
        raise typer.Exit(1) from None
    defaults = FxRates((), tuple(settings.fx_defaults()))
    for row in rows:
        line = row.to_dict() | _at_default(row, defaults)
        sys.stdout.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
    if page.rejected:  # the rows stand; what the page lost, and why, in one line
        err.print(
            f"[yellow]{len(rows)} row(s); {len(page.rejected)} of {page.listings} listing(s) "
            f"rejected: {escape(summary(page.rejected).split(': ', 1)[1])}[/yellow]",
            soft_wrap=True,
        )


def _adapter(settings: Settings, source: str) -> SourceAdapter:
    """The adapter the source's configuration builds, or exit 2 naming the known ones."""
    from scrapers.sources import build_adapter

    src = settings.file.sources.get(source)
    try:
        return build_adapter(
            source, src.adapter if src else None, src.adapter_options() if src else None
        )
    except KeyError as exc:
        err.print(f"[red]{escape(str(exc.args[0]))}[/red]")
        raise typer.Exit(2) from None


def _told_url(
    settings: Settings, adapter: SourceAdapter, file: Path, cloud: str | None, url: str | None
) -> str:
    """The URL the parser is told the body came from: --url, the catalog URL of --cloud, or
    the file's own; exit 2 for a bad combination."""
    from scrapers.sources.skypilot import LIVE_URL, SkypilotAdapter, SkypilotOptions, catalog_url

    if cloud is not None and url is not None:
        _usage("give --cloud or --url, not both (--url names the cloud in its path)")
    if url is not None:
        if not url.strip() or any(c.isspace() for c in url.strip()):
            _usage(f"--url {url[:80]!r}: give the request's URL, without spaces")
        return url.strip()
    if cloud is None:
        return file.resolve().as_uri()
    if not isinstance(adapter, SkypilotAdapter):
        _usage(f"--cloud is for the {_SKYPILOT} source only, not {adapter.name}")
    try:
        SkypilotOptions((cloud,))  # its ValueError says what a cloud name is
    except ValueError as exc:
        _usage(f"--cloud: {exc}")
    src = settings.file.sources.get(adapter.name)
    base = (src.live_url if src else None) or LIVE_URL
    return catalog_url(str(base), adapter.options.catalog_version, cloud)


def _usage(message: str) -> None:
    err.print(f"[red]{escape(message)}[/red]")
    raise typer.Exit(2)


def _at_default(row: Row, defaults: FxRates) -> dict[str, str]:
    """For a row not listed in CNY: its CNY per card-hour at the configured default, labelled
    (``gpuprice parse`` reads no stored rate)."""
    from scrapers.rows import ParseError
    from warehouse.ingest.money import convert

    if row.currency.upper() == "CNY":
        return {}
    try:
        priced = convert(row, defaults)
    except ParseError as exc:
        return {"cny_note": f"no CNY figure: {exc}"}
    rate = f"{priced.fx.cny_per_unit.normalize()} CNY/{priced.fx.currency}"
    return {
        "cny_per_card_hour_at_default": str(priced.cny_per_card_hour),
        "cny_note": f"≈ ¥{priced.cny_per_card_hour} at the configured default {rate}",
    }


# "\\[": rich would take "[fx]" for markup and print "()". The rate is the shipped default
# (a help text cannot read the user's gpuprice.toml).
_HELP = (
    "Print the rows a saved page parses into, one JSON object per line.\n\n"
    "Prices are printed as listed; no warehouse is opened or written. A row listed in another "
    f"currency also shows a CNY figure at the configured default (\\[fx] usd_cny, "
    f"{FxConfig().usd_cny} CNY/USD as shipped), labelled as such (the warehouse converts at the "
    "rate of the row's own day when it loads it). A source configured with adapter = "
    '"generic" uses its \\[sources.NAME.extract] settings.'
)


def register(app: typer.Typer) -> None:
    app.command(help=_HELP)(parse)
