"""The course's data, loaded in pure Python, as plain lists.

Plain lists feed both libraries the same numbers: ``slowtorch_lib.tensor(x)``
and ``torch.tensor(x)`` alike. The real data sets live in ``course/data/``
(with their sources and licences in its README); the toy 2-d data sets are
generated here from a seed.

- :func:`load_digits`: 1,797 handwritten digits, 8x8 pixels each.
- :func:`load_names`: 32,033 first names, for a character-level model.
- :func:`make_moons`, :func:`make_circles`, :func:`make_spirals`,
  :func:`make_blobs`: points in the plane with class labels.
"""

from __future__ import annotations

import gzip
import math
import random
from pathlib import Path

__all__ = [
    "DATA_DIR",
    "load_digits",
    "load_names",
    "make_blobs",
    "make_circles",
    "make_moons",
    "make_spirals",
]

DATA_DIR = Path(__file__).parent / "data"

Points = list[list[float]]


def load_digits(split: str | None = None) -> tuple[Points, list[int]]:
    """Handwritten digits: 8x8 images, with the digit each one shows.

    Args:
        split: ``None`` for all 1,797 images, ``"train"`` for the fixed
            training set (1,437) or ``"test"`` for the test set (360: every
            fifth image, starting with the first).

    Returns:
        ``(images, labels)``: each image a list of 64 floats from 0 (white)
        to 16 (black), row by row; each label an int from 0 to 9.

    Raises:
        ValueError: For another ``split``.
    """
    if split not in (None, "train", "test"):
        raise ValueError(f"split must be None, 'train' or 'test', not {split!r}")
    images: Points = []
    labels: list[int] = []
    with gzip.open(DATA_DIR / "digits.csv.gz", "rt") as lines:
        for index, line in enumerate(lines):
            if split == "test" and index % 5 != 0:
                continue
            if split == "train" and index % 5 == 0:
                continue
            *pixels, label = line.split(",")
            images.append([float(p) for p in pixels])
            labels.append(int(label))
    return images, labels


def load_names() -> list[str]:
    """32,033 lower-case first names (letters a-z only), most common first."""
    text = (DATA_DIR / "names.txt").read_text(encoding="utf-8")
    return text.split()


def _shuffled(
    points: Points, labels: list[int], rng: random.Random
) -> tuple[Points, list[int]]:
    order = list(range(len(points)))
    rng.shuffle(order)
    return [points[i] for i in order], [labels[i] for i in order]


def _jitter(points: Points, noise: float, rng: random.Random) -> Points:
    """Adds Gaussian noise with standard deviation ``noise`` to every coordinate."""
    if not noise:
        return points
    return [[x + rng.gauss(0.0, noise), y + rng.gauss(0.0, noise)] for x, y in points]


def make_moons(
    n_samples: int = 100, noise: float = 0.0, seed: int = 0, shuffle: bool = True
) -> tuple[Points, list[int]]:
    """Two interleaving half circles: class 0 on top, class 1 below.

    Args:
        n_samples: The number of points (half of them, rounded down, in
            class 0).
        noise: The standard deviation of Gaussian noise added to each
            coordinate.
        seed: Seeds the noise and the shuffle: the same seed, the same data.
        shuffle: Mix the two classes (else class 0 comes first).

    Returns:
        ``(points, labels)``: a list of ``[x, y]`` and a list of 0s and 1s.
    """
    rng = random.Random(seed)
    n_top = n_samples // 2
    n_bottom = n_samples - n_top
    top = [[math.cos(t), math.sin(t)] for t in _linspace(0, math.pi, n_top)]
    bottom = [
        [1 - math.cos(t), 0.5 - math.sin(t)] for t in _linspace(0, math.pi, n_bottom)
    ]
    points = _jitter(top + bottom, noise, rng)
    labels = [0] * n_top + [1] * n_bottom
    return _shuffled(points, labels, rng) if shuffle else (points, labels)


def make_circles(
    n_samples: int = 100,
    noise: float = 0.0,
    factor: float = 0.5,
    seed: int = 0,
    shuffle: bool = True,
) -> tuple[Points, list[int]]:
    """A small circle (class 1) inside a large one (class 0).

    Args:
        n_samples: The number of points.
        noise: The standard deviation of Gaussian noise.
        factor: The inner circle's radius (the outer one's is 1).
        seed: Seeds the noise and the shuffle.
        shuffle: Mix the two classes.

    Returns:
        ``(points, labels)``.
    """
    rng = random.Random(seed)
    n_outer = n_samples // 2
    n_inner = n_samples - n_outer
    outer = [[math.cos(t), math.sin(t)] for t in _angles(n_outer)]
    inner = [[factor * math.cos(t), factor * math.sin(t)] for t in _angles(n_inner)]
    points = _jitter(outer + inner, noise, rng)
    labels = [0] * n_outer + [1] * n_inner
    return _shuffled(points, labels, rng) if shuffle else (points, labels)


def make_spirals(
    n_samples: int = 100,
    n_classes: int = 2,
    noise: float = 0.0,
    seed: int = 0,
    shuffle: bool = True,
) -> tuple[Points, list[int]]:
    """Arms of a spiral, one per class, winding out from the centre.

    Args:
        n_samples: The number of points, shared out among the classes.
        n_classes: The number of arms.
        noise: The standard deviation of Gaussian noise.
        seed: Seeds the noise and the shuffle.
        shuffle: Mix the classes.

    Returns:
        ``(points, labels)``, labels from 0 to ``n_classes - 1``.
    """
    rng = random.Random(seed)
    points: Points = []
    labels: list[int] = []
    for arm in range(n_classes):
        count = n_samples // n_classes + (arm < n_samples % n_classes)
        start = 2 * math.pi * arm / n_classes
        for radius in _linspace(0.05, 1.0, count):
            angle = start + 1.75 * 2 * math.pi * radius
            points.append([radius * math.cos(angle), radius * math.sin(angle)])
            labels.append(arm)
    points = _jitter(points, noise, rng)
    return _shuffled(points, labels, rng) if shuffle else (points, labels)


def make_blobs(
    n_samples: int = 100,
    centers: int | Points = 3,
    cluster_std: float = 1.0,
    seed: int = 0,
    shuffle: bool = True,
    center_box: tuple[float, float] = (-10.0, 10.0),
) -> tuple[Points, list[int]]:
    """Gaussian clouds of points, one per class.

    Args:
        n_samples: The number of points, shared out among the centres.
        centers: How many centres to draw at random inside ``center_box``, or
            the centres themselves as ``[x, y]`` pairs.
        cluster_std: The standard deviation of each cloud.
        seed: Seeds the centres, the points and the shuffle.
        shuffle: Mix the classes.
        center_box: Where random centres may lie, on both axes.

    Returns:
        ``(points, labels)``, a cloud's label being its centre's index.
    """
    rng = random.Random(seed)
    if isinstance(centers, int):
        low, high = center_box
        centers = [
            [rng.uniform(low, high), rng.uniform(low, high)] for _ in range(centers)
        ]
    points: Points = []
    labels: list[int] = []
    for label, (cx, cy) in enumerate(centers):
        count = n_samples // len(centers) + (label < n_samples % len(centers))
        for _ in range(count):
            points.append([rng.gauss(cx, cluster_std), rng.gauss(cy, cluster_std)])
            labels.append(label)
    return _shuffled(points, labels, rng) if shuffle else (points, labels)


def _linspace(start: float, stop: float, count: int) -> list[float]:
    if count == 1:
        return [start]
    step = (stop - start) / (count - 1)
    return [start + i * step for i in range(count)]


def _angles(count: int) -> list[float]:
    """``count`` angles evenly around the circle, without repeating 0."""
    return [2 * math.pi * i / count for i in range(count)]
