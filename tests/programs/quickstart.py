"""The beginner's quickstart: data, a model, a training loop and a test loop."""

from __future__ import annotations

import io
import random
from typing import Any

from tests.programs import fill_parameters


def run(torch: Any) -> dict[str, Any]:
    nn = torch.nn
    from_lib = torch.utils.data
    rng = random.Random(0)

    # A made-up image data set: 4x4 "images" of three classes.
    def make_images(count: int) -> tuple[Any, Any]:
        labels = [rng.randrange(3) for _ in range(count)]
        pixels = [
            [[rng.random() + (label == row % 3) for _ in range(4)] for row in range(4)]
            for label in labels
        ]
        return torch.tensor(pixels).unsqueeze(1), torch.tensor(labels)

    training_data = from_lib.TensorDataset(*make_images(48))
    test_data = from_lib.TensorDataset(*make_images(24))
    batch_size = 8
    train_dataloader = from_lib.DataLoader(training_data, batch_size=batch_size)
    test_dataloader = from_lib.DataLoader(test_data, batch_size=batch_size)

    device = "cuda" if torch.cuda.is_available() else "cpu"

    class NeuralNetwork(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.flatten = nn.Flatten()
            self.linear_relu_stack = nn.Sequential(
                nn.Linear(16, 32),
                nn.ReLU(),
                nn.Linear(32, 32),
                nn.ReLU(),
                nn.Linear(32, 3),
            )

        def forward(self, x: Any) -> Any:
            x = self.flatten(x)
            return self.linear_relu_stack(x)

    model = NeuralNetwork().to(device)
    fill_parameters(torch, model, rng)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def train(dataloader: Any) -> list[float]:
        model.train()
        losses = []
        for X, y in dataloader:
            X, y = X.to(device), y.to(device)
            pred = model(X)
            loss = loss_fn(pred, y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            losses.append(loss.item())
        return losses

    def test(dataloader: Any) -> tuple[float, float]:
        size = len(dataloader.dataset)
        num_batches = len(dataloader)
        model.eval()
        test_loss, correct = 0.0, 0.0
        with torch.no_grad():
            for X, y in dataloader:
                X, y = X.to(device), y.to(device)
                pred = model(X)
                test_loss += loss_fn(pred, y).item()
                correct += (pred.argmax(1) == y).type(torch.float).sum().item()
        return test_loss / num_batches, correct / size

    losses = []
    for _ in range(3):
        losses += train(train_dataloader)
    test_loss, accuracy = test(test_dataloader)

    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    buffer.seek(0)
    model2 = NeuralNetwork().to(device)
    model2.load_state_dict(torch.load(buffer, weights_only=True))
    model2.eval()
    with torch.no_grad():
        x, y = test_data[0][0], test_data[0][1]
        predicted = model2(x.unsqueeze(0)).argmax(0 + 1).item()
    return {
        "train_losses": losses,
        "test_loss": test_loss,
        "accuracy": accuracy,
        "predicted": predicted,
        "actual": y.item(),
    }
