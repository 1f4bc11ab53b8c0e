"""Runs a student's project operation on the judge's inputs, in the sandbox.

See :mod:`course.project`. Standard input: the run's nonce and a newline,
then ``{"cases": [{"inputs": [[values, shape], ...], "grad": values}],
"kwargs": {...}, "limits": {...}, "user": uid}``. Standard output: one line
per case, ``NONCE {"case": i, "value": [...], "shape": [...], "grads":
[[...] or null, ...]}``, or ``{"case": i, "error": "TypeError"}``. The judge
believes none of it but what equals PyTorch's answer.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import runner  # type: ignore[import-not-found]  # noqa: E402  (start-up steps)


def answer(torch: Any, op: Any, case: dict[str, Any], kwargs: dict[str, Any]) -> Any:
    inputs = [
        torch.tensor(values).reshape(shape).requires_grad_()
        for values, shape in case["inputs"]
    ]
    out = op(*inputs, **kwargs)
    upstream = torch.tensor(case["grad"]).reshape(out.shape)
    (out * upstream).sum().backward()
    return {
        "value": out.detach().flatten().tolist(),
        "shape": list(out.shape),
        "grads": [
            None if x.grad is None else x.grad.flatten().tolist() for x in inputs
        ],
    }


def main() -> None:
    nonce = bytes(runner.read_nonce(0)).decode()
    job = json.loads(runner.read_all(0))
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    runner.become(job.get("user"))
    runner.not_dumpable()
    runner.set_limits(job.get("limits", {}))
    import slowtorch_lib as torch  # at call time: loaded under the limits set above

    try:
        import project_op  # type: ignore[import-not-found]

        op = project_op.op
    except BaseException as error:  # noqa: BLE001  (reported as no answers)
        print(nonce, json.dumps({"error": type(error).__name__}), flush=True)
        return
    for index, case in enumerate(job["cases"]):
        try:
            record = {"case": index, **answer(torch, op, case, job["kwargs"])}
        except BaseException as error:  # noqa: BLE001
            record = {"case": index, "error": type(error).__name__}
        print(nonce, json.dumps(record), flush=True)


if __name__ == "__main__":
    main()
