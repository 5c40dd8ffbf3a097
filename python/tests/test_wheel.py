"""The wheel: installed with pip into a fresh virtualenv, it gives the ``ldp`` command and
``import ldp``, which finds the binary installed next to it."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

BUILD = (
    "build it with maturin (pip install maturin==1.16.0): "
    "maturin build --profile dev --out DIR (docs/python.md), and set LDP_WHEEL to the .whl; "
    "scripts/test-python run TARGET_DIR does both"
)


@pytest.fixture(scope="module")
def wheel() -> Path:
    path = os.environ.get("LDP_WHEEL")
    if not path:
        pytest.fail(f"LDP_WHEEL is not set: {BUILD}")
    wheel = Path(path)
    assert wheel.is_file(), f"LDP_WHEEL={path} does not exist: {BUILD}"
    return wheel


def test_the_wheel_holds_the_binary_and_the_package(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.endswith(".data/scripts/ldp") for n in names), names[:20]
    assert "ldp/__init__.py" in names and "ldp/errors.py" in names
    assert wheel.name.startswith("ldp_lakehouse-") and "manylinux" in wheel.name


def test_pip_install_into_a_fresh_venv_gives_the_command_and_the_module(wheel, tmp_path, rides_config):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    # pyarrow, the wheel's one dependency, from PyPI (pip's cache makes it quick after once).
    subprocess.run([*pip, str(wheel)], check=True, timeout=600)
    env = {k: v for k, v in os.environ.items() if k not in ("LDP_BINARY", "PYTHONPATH")}
    env["PATH"] = f"{venv / 'bin'}:{env.get('PATH', '')}"
    done = subprocess.run(["ldp", "--help"], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0 and "Usage: ldp" in done.stdout
    assert Path(subprocess.run(["which", "ldp"], capture_output=True, text=True, env=env).stdout.strip()).parent == venv / "bin"
    script = (
        "import ldp, sys\n"
        f"r = ldp.run({str(rides_config)!r})\n"
        f"t = ldp.query({str(rides_config)!r}, 'SELECT count(*) AS n FROM rides')\n"
        "print(r.rows_written, t.column('n')[0].as_py(), ldp.__file__)\n"
    )
    # Run from a folder without python/ on the path: the installed package, with its binary.
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", script],
        capture_output=True, text=True, env={k: v for k, v in env.items() if k != "PATH"} | {"PATH": "/usr/bin:/bin"},
        cwd=tmp_path, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    written, counted, location = done.stdout.split()
    assert (written, counted) == ("20", "20")
    assert location.startswith(str(venv))
