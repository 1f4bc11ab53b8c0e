"""An example final project, checked by tests/grading/test_project.py: its own
tests run only in the check's sandbox, not in the course's test suite."""

collect_ignore = ["test_op.py", "bench_op.py", "op.py"]
