"""The transparency log (issue 10, item 12): one append-only Merkle log (RFC 9162) over every row with a legal effect.

Modules: :mod:`.merkle` (the RFC's tree hash and proofs, pure), :mod:`.coverage` (which tables and columns, and
how a row becomes a leaf), :mod:`.tables`, :mod:`.appending` (the commit hook and the one log-sequence lock),
:mod:`.heads` (Ed25519-signed tree heads and the key file), :mod:`.proofs` (reading heads and proofs),
:mod:`.timestamps` (RFC 3161), :mod:`.notices` (a notice's entry and proof) and :mod:`.verification`.
"""

from models.tlog import appending, tables  # noqa: F401  (register tables and the commit hook)
