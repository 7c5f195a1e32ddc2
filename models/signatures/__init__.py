"""PAdES signatures on the PDFs Balcão issues: :mod:`.pades` signs, :mod:`.validation` checks.

Every notice and every receipt is signed with the certificate of the municipality that issues it (Lei 14.063/2020
Art. 4; docs/LEGAL-CHOICES.md), with an RFC 3161 timestamp when ``BALCAO_TSA_URL`` is set.
"""
