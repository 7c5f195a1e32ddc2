"""Public results: the figures of the /transparencia panel and the open data (L13460 Art. 14 II, 23).

Each figure is one query (:mod:`models.transparency.figures`); the pseudonymised case list is
:mod:`models.transparency.open_data`. Nothing here reads the author's table.
"""
