"""Penalty notices (issue 6): issuing, electronic delivery with ciência, defences, appeals and their events.

Modules: :mod:`.tables` (the tables), :mod:`.elements` (what the act must contain, checked), :mod:`.issuing` (the
fine, the signature, the issue), :mod:`.wording` (the act in words and its PDF), :mod:`.from_case` (a notice from a
decided representação), :mod:`.optin` (electronic-notification opt-in), :mod:`.delivery` (ciência, tacit ciência,
the staff list for post and edital), :mod:`.windows` (which deadlines a notice opens, from its ciência),
:mod:`.filings` (defences, reclamações, appeals, decisions), :mod:`.status` (a notice as screens show it),
:mod:`.chain` (each notice's events in order; their tamper evidence is the log, :mod:`models.tlog`), :mod:`.codes`
and :mod:`.verification` (the public check), :mod:`.pdf`, :mod:`.act_elements` (what an intimação must say),
:mod:`.platform_delivery` (the Lei 1.533 platform's copy).
"""

from models.notices import platform_delivery, tables  # noqa: F401  (register tables)
