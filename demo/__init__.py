"""The bundled, SIMULATED demo: the demo market and its platforms (``demo.market``), the first
start's seeded history (``demo.history_seed``) and the autostart of the market for a run
(``demo.autostart``). The pipeline knows the demo only through the settings of the demo
profile."""
