"""Public price history, read from where it is archived (issue 28).

* :mod:`.cdx`: the Internet Archive's capture index (CDX) and the raw captures it points at;
* :mod:`.periods`: one capture (or commit, or tracker day) per day, week or month;
* :mod:`.github`: the commits of a file in a GitHub repository (SkyPilot's catalog history);
* :mod:`.tracker_csv`: a public tracker's CSV read through a named column mapping;
* :mod:`.fetch`: fetching all of these through :class:`scrapers.http.PoliteClient`.

Everything but :mod:`.fetch` is pure. Parsing a capture is its source's adapter's business
(``scrapers.sources``); the page generation is decided by content, never by the date.
"""
