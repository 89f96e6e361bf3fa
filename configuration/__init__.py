"""The configuration layer: the one typed settings object (schema, environment, secrets) and
what the upper layers (pipelines/, dashboard/, the demo, the CLI) share on top of the lower
ones: the recommender feed, log redaction, the first start's status file."""
