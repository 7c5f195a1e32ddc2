"""Paying a fine: the PIX BR Code, what a notice says about paying, and the payments staff record or import.

:mod:`.pix` builds the static BR Code, :mod:`.instructions` and :mod:`.pdf_block` say how to pay on the notice,
:mod:`.recording` records payments (by staff, or from the bank's file), :mod:`.tables` holds them.

CP Art. 34 IV: the auto de infração intimates the offender to pay; the notice says how (the DAM's office, PIX).
"""

from models.payments import tables  # noqa: F401  (registers notice_payment)
