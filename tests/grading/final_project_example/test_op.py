"""The op against values and gradients recorded from PyTorch 2.13, and a
finite-difference check with the engine's gradcheck."""

import math

from op import op

import slowtorch_lib as torch

X = [[0.5, -1.25, 2.0, 0.75], [-0.3, 0.9, -1.6, 1.1], [1.4, 0.2, -0.7, -2.2]]
G = [[0.3, -0.2, 0.5, 1.0], [-0.7, 0.4, 0.1, -0.6], [0.2, 0.9, -0.4, 0.8]]
# torch.nn.functional.normalize(x, dim=...) and x.grad after (y * G).sum().backward()
Y0 = [[0.32969, -0.804779, 0.753244, 0.291661],
      [-0.197814, 0.57944, -0.602595, 0.42777],
      [0.923133, 0.128765, -0.263635, -0.855539]]  # fmt: skip
D0 = [[0.106074, 0.134769, 0.068647, 0.462541],
      [-0.406522, 0.067785, 0.133394, -0.125295],
      [-0.124996, 0.537275, -0.108766, 0.095037]]  # fmt: skip
Y1 = [[0.19803, -0.495074, 0.792118, 0.297044],
      [-0.138823, 0.41647, -0.740392, 0.509019],
      [0.517102, 0.073872, -0.258551, -0.812589]]  # fmt: skip
D1 = [[0.052031, 0.087754, -0.069116, 0.295879],
      [-0.331353, 0.207393, 0.006639, -0.250397],
      [0.145829, 0.342702, -0.183722, 0.182412]]  # fmt: skip


def close(got, want, tol=1e-5):
    flat = got.detach().flatten().tolist()
    want = torch.tensor(want).flatten().tolist()
    assert len(flat) == len(want)
    for a, b in zip(flat, want):
        assert math.isclose(a, b, rel_tol=1e-4, abs_tol=tol), (a, b)


def run(dim):
    x = torch.tensor(X, requires_grad=True)
    y = op(x, dim=dim)
    (y * torch.tensor(G)).sum().backward()
    return y, x.grad


def test_value_and_gradient_along_dim_0():
    y, grad = run(0)
    close(y, Y0)
    close(grad, D0)


def test_value_and_gradient_along_dim_1():
    y, grad = run(1)
    close(y, Y1)
    close(grad, D1)


def test_a_negative_dim_is_the_last():
    y, grad = run(-1)
    close(y, Y1)
    close(grad, D1)


def test_a_zero_column_divides_by_eps():
    z = torch.tensor([[0.0, 1.0], [0.0, -2.0]], requires_grad=True)
    y = op(z, dim=0)
    y.sum().backward()
    close(y, [[0.0, 0.4472136], [0.0, -0.8944272]])
    close(z.grad, [[1e12, 0.5366563], [1e12, 0.2683282]])


def test_one_dimension():
    v = torch.tensor([3.0, -4.0, 12.0], requires_grad=True)
    y = op(v, dim=0)
    (y * torch.tensor([1.0, 0.5, -1.0])).sum().backward()
    close(y, [0.2307692, -0.3076923, 0.9230769])
    close(v.grad, [0.0919436, 0.0184342, -0.0168412])


def test_finite_differences():
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: op(t, dim=0), (x,))
    assert torch.autograd.gradcheck(lambda t: op(t, dim=1), (x,))
