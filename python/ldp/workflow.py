"""``ldp.workflow``: plan and run workflow files (kind ``Workflow``) for a window."""

from __future__ import annotations

import os
from typing import Any, Optional, Union

from . import _cli

PathLike = Union[str, "os.PathLike[str]"]


def plan(path: PathLike, window: Optional[str] = None) -> Any:
    """The workflow's tasks in order, and for a window their keys (``ldp workflow plan``)."""
    args: list[Any] = ["workflow", "plan", os.fspath(path)]
    if window:
        args += ["--window", window]
    return _cli.run_json(args)


def run(path: PathLike, window: str, jobs: Optional[int] = None) -> Any:
    """Run the workflow's tasks in dependency order for ``window``, each exactly once per
    window; returns ``ldp workflow run --json`` (a task that failed raises, with the run's
    report in the exception's ``stderr``)."""
    args: list[Any] = ["workflow", "run", os.fspath(path), "--window", window]
    if jobs is not None:
        args += ["--jobs", str(jobs)]
    return _cli.run_json(args)
