"""``ldp.maintain``: keep a table healthy (``ldp maintain``)."""

from __future__ import annotations

import os
from typing import Any, Optional, Union

from . import _cli

PathLike = Union[str, "os.PathLike[str]"]


def maintain(
    config: PathLike,
    *,
    expire_days: Optional[float] = None,
    orphans: bool = False,
    compact: bool = False,
    rewrite_manifests: bool = False,
    apply: bool = False,
    retain_last: Optional[int] = None,
    orphan_age_hours: Optional[float] = None,
) -> dict[str, Any]:
    """Expire old snapshots, remove orphan files, compact small files and merge manifests of the
    config's table: a dry run that reports what it would do unless ``apply=True``.

    Expiry keeps the current snapshot, branch and tag heads, the last ``retain_last`` snapshots
    and every snapshot carrying an idempotency key newer than the table's horizon.

    Returns:
        ``ldp maintain --json`` as a dict.
    """
    args: list[Any] = ["maintain", os.fspath(config)]
    if expire_days is not None:
        args += ["--expire", str(expire_days)]
    if orphans:
        args.append("--orphans")
    if compact:
        args.append("--compact")
    if rewrite_manifests:
        args.append("--rewrite-manifests")
    if retain_last is not None:
        args += ["--retain-last", str(retain_last)]
    if orphan_age_hours is not None:
        args += ["--orphan-age-hours", str(orphan_age_hours)]
    if apply:
        args.append("--apply")
    return _cli.run_json(args)
