"""Citizens' cases: representações, ride-hailing reports and ombudsman cases.

Representações (CP Art. 30–32), ride-hailing reports (Lei 1.533/2020) and
ombudsman cases (Lei 13.460/2017), with protocol numbers, timeline, attachments, limits and LGPD export/erasure.

Modules: ``tables`` (the tables), ``protocol`` (numbers), ``fields`` (typed input), ``limits`` and
``attachments`` (abuse limits, files), ``schedule`` (deadlines), ``catalogue_search`` (the Código de Posturas by
keyword), ``ride_hailing`` (the reported car in the drivers' registry), ``filing`` (filing), ``timeline`` (events
and the messages they cause), ``handling`` (staff actions and the hand-over to the penalty notices), ``citizen``
(the author's actions), ``views`` (what each audience may see), ``labels`` (names as msgids), ``privacy`` (LGPD),
``receipt_pdf`` (the receipt).
"""

from models.cases import tables  # noqa: F401  (register tables)
