"""Drivers under Sapezal's Lei 1.533/2020: the registry, identifiers, authorization status and linking.

- :mod:`models.drivers.tables`: drivers, vehicles, authorizations, inspections, fee payments, link codes.
- :mod:`models.drivers.identifiers`: CPF, CNH, plates (old and Mercosul), RENAVAM, phone numbers.
- :mod:`models.drivers.status`: :func:`authorization_status`, a pure function with the rule and article.
- :mod:`models.drivers.registry`: a driver's situation; fee payments, inspections and sanctions.
- :mod:`models.drivers.registry_csv`: the registry CSV read and checked row by row, nothing written.
- :mod:`models.drivers.importing`: the registry CSV applied, all or nothing.
- :mod:`models.drivers.linking`: /vincular by contact and CPF digits or by a one-time code; unlinking.
- :mod:`models.drivers.platforms`: the platforms' list every 30 days (Art. 5 IX), received and late.
"""

from models.drivers import platforms, tables  # noqa: F401  (register the tables)
