"""The course's tooling: notebooks from sources, checks, grading.

Students only meet :func:`check`, in the check cell after each exercise::

    from course import check
    check("1.5", contiguous_strides)

Teachers use the command line (see ``python -m course --help``)::

    python -m course generate          # write exercises/ and solutions/
    python -m course generate --check  # fail if they are out of date
    python -m course grade PATH...     # grade submitted notebooks
    python -m course release OUT/      # a student copy, without solutions
    python -m course.record            # record PyTorch's answers (needs torch)

The engine (``slowtorch_lib``) knows nothing of this package. What a check
needs (this module, :mod:`course.checking`, :mod:`course.substitute` and
``course/checks/``) is standard library only, so checks also run in the
browser (Pyodide).
"""

from course.checking import check

__all__ = ["check"]
