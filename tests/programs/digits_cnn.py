"""A small convolutional network on the course's 8x8 digits, as a tutorial on
CNNs writes it: two convolution blocks with batch norm, ReLU, max pooling and
2-d dropout, adaptive average pooling, a linear head, SGD with momentum and
a learning-rate step, then evaluation; the model saved and loaded."""

from __future__ import annotations

import io
import random
from typing import Any

from course.datasets import load_digits
from tests.programs import fill_parameters


def run(torch: Any) -> dict[str, Any]:
    nn = torch.nn
    F = torch.nn.functional

    class DigitNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(1, 6, 3, padding=1),
                nn.BatchNorm2d(6),
                nn.ReLU(),
                nn.MaxPool2d(2),
                nn.Conv2d(6, 8, 3, padding="same", padding_mode="reflect"),
                nn.ReLU(),
                nn.Dropout2d(0.0),
                nn.AdaptiveAvgPool2d((2, 2)),
            )
            self.head = nn.Linear(8 * 2 * 2, 10)

        def forward(self, x: Any) -> Any:
            return self.head(torch.flatten(self.features(x), 1))

    images, labels = load_digits("train")
    x = torch.tensor(images[:128]).view(-1, 1, 8, 8) / 16
    y = torch.tensor(labels[:128])
    model = DigitNet()
    fill_parameters(torch, model, random.Random(11))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)
    order = list(range(128))
    random.Random(2).shuffle(order)
    losses = []
    model.train()
    for _ in range(2):
        for start in range(0, 128, 32):
            index = torch.tensor(order[start : start + 32])
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            scheduler.step()
            losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        test_images, test_labels = load_digits("test")
        xt = torch.tensor(test_images[:64]).view(-1, 1, 8, 8) / 16
        predicted = model(xt).argmax(dim=1)
        accuracy = (predicted == torch.tensor(test_labels[:64])).float().mean().item()
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    buffer.seek(0)
    again = DigitNet()
    again.load_state_dict(torch.load(buffer))
    again.eval()
    with torch.no_grad():
        same = torch.equal(again(xt), model(xt))
    return {
        "losses": losses,
        "accuracy": accuracy,
        "lr": scheduler.get_last_lr()[0],
        "running_mean": model.features[1].running_mean.tolist(),
        "state_keys": list(model.state_dict()),
        "reloaded_same": same,
        "repr": repr(model.features),
    }
