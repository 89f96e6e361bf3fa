"""RunPod: its GraphQL API and the three generations of its pricing page.

``adapter.py`` is the adapter; ``_formats.py`` reads each format RunPod publishes into the
same quotes, and serves only it.
"""
