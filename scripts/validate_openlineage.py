#!/usr/bin/env python3
"""Validates OpenLineage events (one JSON object per line) against the OpenLineage JSON Schemas.

    scripts/validate_openlineage.py FILE.jsonl [FILE.jsonl ...] --spec DIR [--spec DIR ...] [--strict]

Every line must be a valid ``RunEvent`` of the core schema its ``schemaURL`` names
(``https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent`` for ldp), with the
``uri``, ``date-time`` and ``uuid`` formats checked. Then every facet that carries a ``_schemaURL``
of a standard facet (``https://openlineage.io/spec/facets/<version>/<Name>.json#/$defs/<Name>``)
is validated against that facet schema. When that exact version is not among the schemas given,
the newest version of the same facet that is given is used and a note says so (``--strict``
makes it an error). Custom facets (``ldp_run``) are checked by the core schema only. Exit status:
0 when every event is valid, 1 otherwise, 2 for a usage error.

Where the schemas come from
---------------------------
No package on PyPI ships the OpenLineage 2-0-2 JSON Schemas. Checked (2026-12): the wheels and
sdists of openlineage-python (the client generates its classes from the schemas at build time
and ships only Python), openlineage-integration-common, openlineage-airflow, openlineage-dbt,
openlineage-sql, apache-airflow-providers-openlineage (Airflow's own facets only),
dataos-openlineage-python, dagster-openlineage, dlt-openlineage, sqlmesh-openlineage,
mloda-community-openlineage, etlantic-openlineage, floe-lineage-marquez, correlator-dbt,
grai-source-openlineage, and metamart-source-openlineage (ships only the old 1-1-0 core and
1-0-0 facets). The npm registry's package lists name no OpenLineage package, and its search is
not reachable from here. So the schemas are the files of the ``spec/`` folder of the OpenLineage
repository (https://github.com/OpenLineage/OpenLineage, Apache-2.0), which this repository does
not copy: give that folder (a checkout of any tag, or several folders) with ``--spec`` or the
``OPENLINEAGE_SPEC`` environment variable (paths separated by ``:``). Every ``*.json`` under it
is read and indexed by its ``$id``, so several versions of a facet may sit side by side.
The versions ldp's events name: core 2-0-2; facets SchemaDatasetFacet 1-2-0,
DataQualityAssertionsDatasetFacet 1-1-0, OutputStatisticsOutputDatasetFacet 1-0-2,
ErrorMessageRunFacet 1-0-1, NominalTimeRunFacet 1-0-1, JobTypeJobFacet 2-0-4, ParentRunFacet
1-1-0, and DataQualityMetricsDatasetFacet 1-0-1 -- a version the OpenLineage repository never
published (the reference's quirk: the facet exists as DataQualityMetricsDatasetFacet 1-0-0 and
DataQualityMetricsInputDatasetFacet 1-0-1), validated against the newest given.

Python packages (the test venv, see scripts/test):

    .venv/bin/pip install 'jsonschema[format-nongpl]'

which brings ``jsonschema`` and ``referencing`` (Draft 2020-12, ``$ref`` across files by
``$id``) and the format checkers of ``uri`` (rfc3986-validator) and ``date-time``
(rfc3339-validator).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

try:
    import jsonschema
    from referencing import Registry, Resource
except ImportError:  # pragma: no cover - a setup problem
    sys.exit("validate_openlineage.py needs the jsonschema package: "
             ".venv/bin/pip install 'jsonschema[format-nongpl]'")

_FACET_URL = re.compile(r"^https://openlineage\.io/spec/facets/(\d+-\d+-\d+)/([A-Za-z]+)\.json")


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("-"))


def load_schemas(folders: list[Path]) -> dict[str, dict]:
    """Every JSON Schema under the folders, by ``$id`` (without fragment)."""
    schemas: dict[str, dict] = {}
    for folder in folders:
        for path in sorted(folder.rglob("*.json")):
            try:
                document = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(document, dict) and isinstance(document.get("$id"), str):
                schemas.setdefault(document["$id"].split("#")[0], document)
    return schemas


class Validator:
    """Validates events and their facets against the schemas given."""

    def __init__(self, schemas: dict[str, dict], strict: bool):
        self.schemas = schemas
        self.strict = strict
        self.registry = Registry().with_resources(
            (uri, Resource.from_contents(document)) for uri, document in schemas.items())
        self.format_checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
        self.newest: dict[str, tuple[tuple[int, ...], str]] = {}
        for uri in schemas:
            match = _FACET_URL.match(uri)
            if match:
                version, name = match.groups()
                key = _version_key(version)
                if name not in self.newest or key > self.newest[name][0]:
                    self.newest[name] = (key, uri)

    def _errors(self, ref: str, instance: object) -> list[str]:
        validator = jsonschema.Draft202012Validator(
            {"$ref": ref}, registry=self.registry, format_checker=self.format_checker)
        return [f"{'/'.join(str(p) for p in error.absolute_path) or '(event)'}: {error.message}"
                for error in sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))]

    def event(self, event: object) -> tuple[list[str], list[str]]:
        """The errors and notes of one event."""
        if not isinstance(event, dict):
            return [f"an event must be an object, got {type(event).__name__}"], []
        schema_url = event.get("schemaURL")
        if not isinstance(schema_url, str) or schema_url.split("#")[0] not in self.schemas:
            return [f"schemaURL {schema_url!r} names no schema given with --spec"], []
        errors = self._errors(schema_url, event)
        notes: list[str] = []
        for where, facet in _facets(event):
            url = facet.get("_schemaURL")
            match = _FACET_URL.match(url) if isinstance(url, str) else None
            if not match:
                continue  # a custom facet: the core schema checked its _producer and _schemaURL
            version, name = match.groups()
            base = url.split("#")[0]
            if base in self.schemas:
                ref = url
            elif name in self.newest:
                newest = self.newest[name][1]
                message = f"{where}: no schema {base}; validated against {newest}"
                (errors if self.strict else notes).append(message)
                ref = f"{newest}#/$defs/{name}"
            else:
                (errors if self.strict else notes).append(f"{where}: no schema for {name} given; not checked")
                continue
            errors += [f"{where}/{error}" for error in self._errors(ref, facet)]
        return errors, notes


def _facets(event: dict):
    """(path, facet) of every facet of the run, the job and the datasets."""
    for section in ("run", "job"):
        facets = (event.get(section) or {}).get("facets") or {}
        for name, facet in facets.items():
            if isinstance(facet, dict):
                yield f"{section}/facets/{name}", facet
    for side in ("inputs", "outputs"):
        for index, dataset in enumerate(event.get(side) or []):
            if not isinstance(dataset, dict):
                continue
            for group in ("facets", "inputFacets", "outputFacets"):
                for name, facet in (dataset.get(group) or {}).items():
                    if isinstance(facet, dict):
                        yield f"{side}/{index}/{group}/{name}", facet


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE.jsonl")
    parser.add_argument("--spec", action="append", type=Path, default=[],
                        help="a folder of OpenLineage JSON Schemas (the spec/ folder of the OpenLineage repository)")
    parser.add_argument("--strict", action="store_true",
                        help="a facet whose exact schema version is not given is an error, not a note")
    args = parser.parse_args(argv)
    folders = list(args.spec) + [Path(p) for p in os.environ.get("OPENLINEAGE_SPEC", "").split(":") if p]
    if not folders:
        parser.error("give the OpenLineage schemas with --spec DIR or OPENLINEAGE_SPEC (see the top of this file)")
    schemas = load_schemas(folders)
    if not schemas:
        parser.error(f"no JSON Schema with a $id under {', '.join(map(str, folders))}")
    validator = Validator(schemas, args.strict)
    invalid = checked = 0
    for file in args.files:
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            checked += 1
            try:
                event = json.loads(line)
            except ValueError as error:
                errors, notes = [f"not JSON: {error}"], []
            else:
                errors, notes = validator.event(event)
            for note in notes:
                print(f"{file}:{number}: note: {note}")
            for error in errors:
                print(f"{file}:{number}: {error}")
            invalid += bool(errors)
    print(f"{checked - invalid} valid, {invalid} invalid OpenLineage events")
    return 1 if invalid or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
