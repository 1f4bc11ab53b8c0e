"""The course's tooling: notebooks from sources, checks, grading.

Students only meet :func:`check`, in the check cell after each exercise::

    from course import check
    check("1.5", contiguous_strides)

In a class edition (``python -m course release``) a piece that passes its
check is saved and used by the engine from then on; ``course.pieces()``
lists what is saved and ``course.reset("1.5")`` deletes a saved piece.

Teachers use the command line (see ``python -m course --help``)::

    python -m course generate          # write exercises/ and solutions/
    python -m course generate --check  # fail if they are out of date
    python -m course collect ZIP OUT/  # an LMS's download: a folder per student
    python -m course grade CLASS/      # grade submitted notebooks
    python -m course release OUT/      # a class edition: students write the engine
    python -m course.record            # record PyTorch's answers (needs torch)

The engine (``slowtorch_lib``) knows nothing of this package. What a check
needs (this module, :mod:`course.checking`, :mod:`course.substitute` and
``course/checks/``) is standard library only, so checks also run in the
browser (Pyodide).
"""

from course.checking import check
from course.workspace import pieces, reset

__all__ = ["check", "pieces", "reset"]
