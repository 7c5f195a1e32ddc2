"""Outbound: outbox dispatch, reminder scans, broadcasts and message rendering.

Areas plug in through three registries: ``rendering`` (how a kind of message reads), ``scans`` (what
becomes due, computed from database state) and ``audiences`` (who a staff broadcast reaches).
"""
