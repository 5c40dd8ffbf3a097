"""Fixtures of the Python package's tests.

The tests import ``ldp`` as the interpreter finds it: scripts/test installs the wheel it built
into the venv that runs them (so they test the wheel); a developer may instead put ``python/``
on ``PYTHONPATH`` and point ``LDP_BINARY`` at a built binary.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


@pytest.fixture()
def rides_config(tmp_path: Path) -> Path:
    """The example rides config and its CSV, copied into a fresh folder (warehouse inside)."""
    shutil.copytree(EXAMPLES / "data", tmp_path / "data")
    config = tmp_path / "rides.json"
    shutil.copy(EXAMPLES / "rides.json", config)
    return config


def write_config(path: Path, doc: dict) -> Path:
    """Writes a dataset config (JSON) and gives its path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2))
    return path


@pytest.fixture()
def make_config(tmp_path: Path):
    """A function writing an ``ldp/v1`` Pipeline config under ``tmp_path``:
    ``make_config(name, source=..., target=..., quality=None, window=None)``."""

    def make(name: str, source: dict, target: dict, **metadata: object) -> Path:
        doc = {
            "apiVersion": "ldp/v1",
            "kind": "Pipeline",
            "identifier": name,
            "who": "tests",
            "what": name,
            "metadata": {"source": source, "target": target, **{k: v for k, v in metadata.items() if v is not None}},
        }
        return write_config(tmp_path / "config" / f"{name}.json", doc)

    return make
