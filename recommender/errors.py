"""The one exception the recommender raises for bad input."""


class RecommenderInputError(ValueError):
    """A workload, spec or price the recommender cannot reason about.

    Subclasses ValueError so callers that already catch ValueError (CLI argument
    parsing, Streamlit forms) keep working; the message always says what is allowed.
    """
