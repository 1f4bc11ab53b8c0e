"""Softmax regression in the style of a textbook's own library: the data
and the weights drawn with the library's generator after ``manual_seed``
(the same numbers in both libraries), NumPy's keyword spellings
(``argmax(axis=1)``, ``sum(axis=...)``), ``randint(n, size=...)`` and a
lazy first layer."""

from __future__ import annotations

from typing import Any


def run(torch: Any) -> dict[str, Any]:
    nn = torch.nn
    torch.manual_seed(7)
    features = torch.normal(0.0, 1.0, (96, 2, 3, 3))
    labels = torch.randint(3, size=(96,))
    features[torch.arange(96), labels % 2] += labels.reshape(-1, 1, 1) * 0.75
    dataset = torch.utils.data.TensorDataset(features, labels)
    generator = torch.Generator().manual_seed(3)
    loader = torch.utils.data.DataLoader(
        dataset, batch_size=16, shuffle=True, generator=generator
    )
    model = nn.Sequential(nn.Flatten(), nn.LazyLinear(3))
    model(features[:1])  # the first call gives the lazy layer its shape

    def accuracy(y_hat: Any, y: Any) -> float:
        right = y_hat.argmax(axis=1).type(y.dtype) == y
        return float(right.type(torch.float32).sum(axis=0)) / len(y)

    optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
    losses = []
    for _ in range(3):
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    with torch.no_grad():
        scores = model(features)
    return {
        "first weights": model[1].weight[0, :4].tolist(),
        "losses": losses[::4],
        "accuracy": accuracy(scores, labels),
        "kept": scores.max(axis=1, keepdims=True).values.shape[1],
        "classes": [int((labels == c).sum()) for c in range(3)],
    }
