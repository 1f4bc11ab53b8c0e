"""The tensors tutorial: making tensors, attributes, operations, the NumPy bridge."""

from __future__ import annotations

from typing import Any


def run(torch: Any) -> dict[str, Any]:
    import numpy as np

    data = [[1, 2], [3, 4]]
    x_data = torch.tensor(data)
    np_array = np.array(data)
    x_np = torch.from_numpy(np_array)
    x_ones = torch.ones_like(x_data)
    x_rand = torch.rand_like(x_data, dtype=torch.float)

    shape = (2, 3)
    rand_tensor = torch.rand(shape)
    ones_tensor = torch.ones(shape)
    zeros_tensor = torch.zeros(shape)

    tensor = torch.rand(3, 4)
    attributes = [list(tensor.shape), str(tensor.dtype), str(tensor.device)]
    if torch.cuda.is_available():
        tensor = tensor.to("cuda")

    tensor = torch.ones(4, 4)
    first_row = tensor[0].tolist()
    tensor[:, 1] = 0
    t1 = torch.cat([tensor, tensor, tensor], dim=1)

    y1 = tensor @ tensor.T
    y2 = tensor.matmul(tensor.T)
    y3 = torch.rand_like(y1)
    torch.matmul(tensor, tensor.T, out=y3)

    z1 = tensor * tensor
    z2 = tensor.mul(tensor)
    z3 = torch.rand_like(tensor)
    torch.mul(tensor, tensor, out=z3)

    agg = tensor.sum()
    agg_item = agg.item()
    tensor.add_(5)

    t = torch.ones(5)
    n = t.numpy()
    t.add_(1)
    shared = n.tolist()

    return {
        "x_np": x_np.tolist(),
        "x_np_dtype": str(x_np.dtype),
        "x_ones": x_ones.tolist(),
        "x_rand_shape": list(x_rand.shape),
        "x_rand_in_unit": bool(((x_rand >= 0) & (x_rand < 1)).all()),
        "shapes": [list(t.shape) for t in (rand_tensor, ones_tensor, zeros_tensor)],
        "attributes": attributes,
        "first_row": first_row,
        "t1": t1.tolist(),
        "products": [y1.tolist(), y2.tolist(), y3.tolist()],
        "elementwise": [z1.tolist(), z2.tolist(), z3.tolist()],
        "agg_item": agg_item,
        "added": tensor.tolist(),
        "numpy_shares": shared,
        "back_to_numpy": np.array(x_data).tolist(),
    }
