"""The course's tooling: notebooks from sources, checks, grading.

Students only meet :func:`check`, in the check cell after each exercise::

    from course import check
    check("1.1", contiguous_strides)

Teachers use the command line (see ``python -m course --help``)::

    python -m course generate          # write exercises/ and solutions/
    python -m course generate --check  # fail if they are out of date
    python -m course grade PATH...     # grade submitted notebooks

The engine (``slowtorch_lib``) knows nothing of this package.
"""

from course.checking import check

__all__ = ["check"]
