"""Running the ``ldp`` binary: where it is, how it is called, and how its errors come back.

The package drives the binary the wheel installs next to it (``LDP_BINARY`` overrides it). Every
call sets ``LDP_ERROR_FORMAT=json``, so a failure ends with one JSON line on stderr naming its
kind, which becomes the matching exception of :mod:`ldp.errors`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import IO, Any, Sequence

from .errors import LdpError, error_class

ERROR_FORMAT_ENV = "LDP_ERROR_FORMAT"


def binary() -> str:
    """The ``ldp`` executable: ``$LDP_BINARY``, else the one in this environment's scripts
    folder (where the wheel puts it), else the first ``ldp`` on ``PATH``."""
    explicit = os.environ.get("LDP_BINARY")
    if explicit:
        return explicit
    name = "ldp.exe" if sys.platform == "win32" else "ldp"
    for scheme_path in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        candidate = Path(scheme_path) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("ldp")
    if found:
        return found
    raise LdpError(
        "the ldp binary was not found: install the ldp wheel (pip install ldp-*.whl), "
        "or set LDP_BINARY to the binary"
    )


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a call: this process's, with the JSON error line asked for."""
    env = dict(os.environ)
    env[ERROR_FORMAT_ENV] = "json"
    if extra:
        env.update(extra)
    return env


def command(args: Sequence[str | os.PathLike[str]]) -> list[str]:
    return [binary(), *[os.fspath(a) for a in args]]


def run(
    args: Sequence[str | os.PathLike[str]],
    *,
    ok_codes: tuple[int, ...] = (0,),
    pass_fds: tuple[int, ...] = (),
) -> subprocess.CompletedProcess[str]:
    """Runs ``ldp ARGS`` to the end; raises the error's exception unless its exit code is in
    ``ok_codes``."""
    done = subprocess.run(
        command(args),
        capture_output=True,
        text=True,
        env=environment(),
        pass_fds=pass_fds,
        check=False,
    )
    if done.returncode not in ok_codes:
        raise failure(done.returncode, done.stderr)
    return done


def run_json(args: Sequence[str | os.PathLike[str]], **kwargs: Any) -> Any:
    """Runs ``ldp ARGS --json`` and gives the parsed JSON it printed."""
    done = run([*args, "--json"], **kwargs)
    return json.loads(done.stdout)


def popen(args: Sequence[str | os.PathLike[str]], stdout: int | IO[bytes] = subprocess.PIPE) -> subprocess.Popen[bytes]:
    """Starts ``ldp ARGS`` with its stdout piped (binary) and its stderr captured."""
    return subprocess.Popen(
        command(args),
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=environment(),
    )


def failure(code: int, stderr: str) -> LdpError:
    """The exception for a command that exited with ``code`` and printed ``stderr``."""
    details: dict[str, Any] | None = None
    lines = stderr.rstrip("\n").splitlines()
    for line in reversed(lines):
        if line.startswith('{"ldp_error"'):
            try:
                details = json.loads(line)["ldp_error"]
            except (ValueError, KeyError):
                details = None
            break
    if details is None:
        message = next(
            (l.removeprefix("ldp: error: ") for l in lines if l.startswith("ldp: error: ")),
            stderr.strip() or f"ldp exited with {code}",
        )
        kind = "quality_blocked" if code == 3 else "error"
        return error_class(kind)(message, exit_code=code, stderr=stderr)
    return error_class(details.get("kind", "error"))(
        details.get("message", ""),
        exit_code=int(details.get("exit_code", code)),
        retryable=bool(details.get("retryable", False)),
        python_type=details.get("python_type"),
        stderr=stderr,
    )
