"""Hidden cases and reference answers, one module per chapter (``chNN.py``).

Each module defines ``EXERCISES``: a dict from exercise id (``"1.3"``) to a
:class:`course.cases.Exercise`. Students import this package through
:func:`course.check` and never see the cases in their notebook.
"""
