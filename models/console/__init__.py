"""The staff web console's own records: one-time sign-in links, sessions and response templates."""

from models.console import tables  # noqa: F401  (register tables)
