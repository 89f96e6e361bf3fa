"""The ECB's euro foreign exchange reference rates history, as daily USD→CNY rates.

Pure: bytes in, :class:`~scrapers.fx.FxRate` out. The ECB publishes
``https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip``, a zip holding one file,
``eurofxref-hist.csv``: a header ``Date,USD,JPY,...,CNY,...,`` (with a trailing comma), then
one row per TARGET working day, newest first, ``YYYY-MM-DD``, each figure the units of that
currency one euro buys. A currency not quoted on a day holds ``N/A`` (CNY before 2005-04-01).

CNY per USD on a day is ``CNY / USD`` (both per euro), quantized like every other rate
(:data:`scrapers.fx.RATE_QUANTUM`). A day without a USD or CNY figure is skipped; weekends and
TARGET holidays have no row: a row observed on one is converted at the nearest earlier day's
rate (:class:`scrapers.fx.FxRates`). Anything else that is not a rate table is a
:class:`~scrapers.rows.ParseError` with a one-line message.
"""

from __future__ import annotations

import io
import zipfile
from datetime import date
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from scrapers.fx import RATE_QUANTUM, FxRate
from scrapers.rows import ParseError

__all__ = ["ECB_HIST_URL", "ecb_source", "parse_ecb_history"]

ECB_HIST_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip"
_MISSING = "N/A"
_LOWEST, _HIGHEST = RATE_QUANTUM, Decimal(1_000_000)
_MAX_ZIP_MEMBER = 64 * 1024 * 1024  # the real file is about 2 MB


def ecb_source(origin: str) -> str:
    """The ``fx_rate.source`` of a rate read from ``origin`` (a file name or URL)."""
    return f"ECB euro reference rates, CNY/USD ({origin})"


def _csv_text(body: bytes, origin: str) -> str:
    if body[:4] == b"PK\x03\x04":
        try:
            with zipfile.ZipFile(io.BytesIO(body)) as archive:
                members = [i for i in archive.infolist() if i.filename.lower().endswith(".csv")]
                if len(members) != 1:
                    raise ParseError(f"{origin}: a zip with {len(members)} CSV files, expected 1")
                if members[0].file_size > _MAX_ZIP_MEMBER:
                    raise ParseError(f"{origin}: {members[0].filename} is too large")
                body = archive.read(members[0])
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise ParseError(f"{origin}: not a readable zip ({exc})") from None
    try:
        return body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(f"{origin}: not a UTF-8 CSV ({exc.reason} at byte {exc.start})") from None


def _number(text: str, origin: str, line: int, column: str) -> Decimal | None:
    text = text.strip()
    if text == _MISSING or text == "":
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise ParseError(f"{origin}: line {line}: {column} {text[:40]!r} is not a number") from None
    if not value.is_finite() or value <= 0:
        raise ParseError(f"{origin}: line {line}: {column} {text[:40]!r} is not a positive rate")
    return value


def parse_ecb_history(body: bytes, origin: str) -> list[FxRate]:
    """Daily CNY per USD from ``eurofxref-hist.csv`` (or the zip holding it), oldest first.

    ``origin`` names the file or URL; it is part of each rate's ``source``."""
    lines = _csv_text(body, origin).splitlines()
    if not lines or not lines[0].strip():
        raise ParseError(f"{origin}: empty file, expected the ECB's eurofxref-hist.csv")
    header = [cell.strip() for cell in lines[0].split(",")]
    if header[0] != "Date":
        raise ParseError(f"{origin}: the first column is {header[0][:40]!r}, expected 'Date'")
    missing = [code for code in ("USD", "CNY") if code not in header]
    if missing:
        raise ParseError(f"{origin}: no {' or '.join(missing)} column in the header")
    usd_at, cny_at = header.index("USD"), header.index("CNY")
    source = ecb_source(origin)
    found: dict[date, FxRate] = {}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = line.split(",")
        if len(cells) <= max(usd_at, cny_at):
            raise ParseError(f"{origin}: line {number}: {len(cells)} cells, fewer than the header")
        try:
            day = date.fromisoformat(cells[0].strip())
        except ValueError:
            raise ParseError(
                f"{origin}: line {number}: {cells[0][:40]!r} is not a day YYYY-MM-DD"
            ) from None
        if day in found:
            raise ParseError(f"{origin}: line {number}: {day} appears twice")
        usd = _number(cells[usd_at], origin, number, "USD")
        cny = _number(cells[cny_at], origin, number, "CNY")
        if usd is None or cny is None:
            continue  # not quoted that day (N/A)
        rate = (cny / usd).quantize(RATE_QUANTUM, rounding=ROUND_HALF_UP)
        if not _LOWEST <= rate < _HIGHEST:  # what fx_rate.cny_per_unit (DECIMAL(12, 6)) holds
            raise ParseError(f"{origin}: line {number}: CNY/USD {rate} is out of range")
        found[day] = FxRate(day, "USD", rate, source)
    if not found:
        raise ParseError(f"{origin}: no day with both a USD and a CNY rate")
    return [found[day] for day in sorted(found)]
