"""The course's data loaders and toy generators."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from course import datasets


def test_digits() -> None:
    images, labels = datasets.load_digits()
    assert len(images) == len(labels) == 1797
    assert all(len(image) == 64 for image in images)
    assert min(min(i) for i in images) == 0.0 and max(max(i) for i in images) == 16.0
    assert set(labels) == set(range(10))
    train, test = datasets.load_digits("train"), datasets.load_digits("test")
    assert len(train[0]) == 1437 and len(test[0]) == 360
    assert test[0][0] == images[0] and test[0][1] == images[5]
    assert train[0][0] == images[1]
    assert sorted(map(tuple, train[0] + test[0])) == sorted(map(tuple, images))
    assert min(Counter(test[1]).values()) >= 25  # every digit is tested
    with pytest.raises(ValueError, match="split"):
        datasets.load_digits("validation")


def test_names() -> None:
    names = datasets.load_names()
    assert len(names) == 32033  # the last line has no newline
    assert names[:3] == ["emma", "olivia", "ava"]
    assert all(name.isalpha() and name.islower() and name.isascii() for name in names)


@pytest.mark.parametrize(
    "make",
    [
        datasets.make_moons,
        datasets.make_circles,
        datasets.make_spirals,
        datasets.make_blobs,
    ],
)
def test_generators_are_seeded_lists(make: object) -> None:
    points, labels = (
        make(n_samples=101, noise=0.1, seed=3)
        if make is not (datasets.make_blobs)
        else make(n_samples=101, seed=3)
    )  # type: ignore[operator]
    assert len(points) == len(labels) == 101
    assert all(isinstance(p, list) and len(p) == 2 for p in points)
    assert all(isinstance(v, float) for p in points for v in p)
    again = (
        make(n_samples=101, noise=0.1, seed=3)
        if make is not (datasets.make_blobs)
        else make(n_samples=101, seed=3)
    )  # type: ignore[operator]
    assert (points, labels) == again
    other = make(n_samples=101, seed=4)  # type: ignore[operator]
    assert other[0] != points
    counts = Counter(labels)
    assert max(counts.values()) - min(counts.values()) <= 1


def test_shapes_of_the_toy_sets() -> None:
    points, labels = datasets.make_circles(200, factor=0.3, shuffle=False)
    radii = [math.hypot(x, y) for x, y in points]
    assert all(math.isclose(r, 1.0) for r in radii[:100])
    assert all(math.isclose(r, 0.3) for r in radii[100:])
    points, labels = datasets.make_moons(100, shuffle=False)
    assert labels[:50] == [0] * 50 and all(y >= -1e-12 for _, y in points[:50])
    assert all(y <= 0.5 + 1e-12 for _, y in points[50:])
    points, labels = datasets.make_spirals(90, n_classes=3)
    assert set(labels) == {0, 1, 2} and max(math.hypot(*p) for p in points) <= 1.0
    points, labels = datasets.make_blobs(
        60, centers=[[5.0, 5.0], [-5.0, -5.0]], cluster_std=0.5
    )
    for (x, _), label in zip(points, labels):
        assert (x > 0) == (label == 0)
