"""The generic extractor: prices from a site that has no adapter of its own.

``adapter.py`` is the adapter (``adapter = "generic"`` in ``[sources.<name>]``, configured by
``[sources.<name>.extract]``). Its helpers serve only it: ``_table.py`` finds the tables and
their cells, ``_table_columns.py`` says what a header or a cell holds, and ``_table_layout.py``
decides which column is which. The toolkit every adapter shares stays in ``scrapers.sources``.
"""
