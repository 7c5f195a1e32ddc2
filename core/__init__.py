"""The base of Balcão: settings, translations, the database engine and schema, municipalities, metrics.

Every layer may import these modules (models, notifications, handlers and the composition root in ``bot``);
they import nothing of those layers.
"""
