"""A graph convolution network on a small graph, with sparse adjacency.

Two communities of six nodes (rings with a chord) joined by one bridge.
The normalised adjacency with self-loops, D^-1/2 (A + I) D^-1/2, is built
twice: from its coordinates with ``torch.sparse_coo_tensor``, and as
``torch.diag(d).to_sparse()`` products around the plain adjacency; both are
sparse COO tensors that ``torch.sparse.mm``, ``torch.spmm`` and ``@``
multiply by dense features. A two-layer GCN learns the communities from
four labelled nodes with Adam. The seed is the same for both libraries.
"""

from __future__ import annotations

from typing import Any

RING = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0), (0, 3)]
EDGES = RING + [(a + 6, b + 6) for a, b in RING] + [(2, 8)]
NODES = 12


def normalised_adjacency(torch: Any) -> Any:
    """D^-1/2 (A + I) D^-1/2 from its coordinates: a sparse COO tensor."""
    pairs = EDGES + [(b, a) for a, b in EDGES] + [(i, i) for i in range(NODES)]
    indices = torch.tensor([[a for a, _ in pairs], [b for _, b in pairs]])
    ones = torch.ones(len(pairs))
    degree = torch.zeros(NODES).index_add_(0, indices[0], ones)
    scale = degree.pow(-0.5)
    values = scale[indices[0]] * scale[indices[1]]
    return torch.sparse_coo_tensor(indices, values, (NODES, NODES)).coalesce()


def run(torch: Any) -> dict[str, Any]:
    torch.manual_seed(7)
    adjacency = normalised_adjacency(torch)
    # The same matrix as products: diag(d) @ (A + I) @ diag(d), sparse first.
    plain = adjacency.to_dense().ne(0).float()
    scale = torch.diag(plain.sum(1).pow(-0.5)).to_sparse()
    product = torch.sparse.mm(scale, torch.spmm(scale, plain).t()).t()

    features = torch.randn(NODES, 5)
    labels = torch.tensor([0] * 6 + [1] * 6)
    known = torch.tensor([0, 4, 7, 10])
    first, second = torch.nn.Linear(5, 8), torch.nn.Linear(8, 2)
    params = list(first.parameters()) + list(second.parameters())
    optimizer = torch.optim.Adam(params, lr=0.05)
    losses = []
    for _ in range(25):
        hidden = torch.relu(torch.sparse.mm(adjacency, first(features)))
        logits = adjacency @ second(hidden)
        loss = torch.nn.functional.cross_entropy(logits[known], labels[known])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    with torch.no_grad():
        hidden = torch.relu(torch.mm(adjacency, first(features)))
        predicted = torch.sparse.mm(adjacency, second(hidden)).argmax(1)

    # A learnable edge weight: the gradient reaches the sparse leaf.
    weights = adjacency.detach().requires_grad_()
    torch.sparse.mm(weights, features).pow(2).sum().backward()
    return {
        "nnz": adjacency._nnz(),
        "coalesced": adjacency.is_coalesced(),
        "layout": repr(adjacency.layout),
        "indices": adjacency.indices()[:, :8].tolist(),
        "values": adjacency.values().tolist(),
        "same_matrix": (product - adjacency.to_dense()).abs().max().item(),
        "scale_repr": repr(torch.diag(torch.tensor([0.5, 0.0, 2.0])).to_sparse()),
        "losses": losses,
        "loss_grad_fn": loss.grad_fn.name(),
        "logits_grad_fn": logits.grad_fn.name(),
        "predicted": predicted.tolist(),
        "accuracy": (predicted == labels).float().mean().item(),
        "edge_grad_layout": repr(weights.grad.layout),
        "edge_grad": weights.grad.coalesce().values()[:6].tolist(),
    }
