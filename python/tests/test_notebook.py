"""examples/notebook.ipynb, executed cell by cell with nbclient, so it never rots."""

from __future__ import annotations

import shutil

import nbformat
from nbclient import NotebookClient

from conftest import EXAMPLES


def test_the_notebook_runs_from_start_to_end(tmp_path):
    shutil.copytree(EXAMPLES / "data", tmp_path / "data")
    shutil.copy(EXAMPLES / "rides.json", tmp_path / "rides.json")
    notebook = nbformat.read(EXAMPLES / "notebook.ipynb", as_version=4)
    client = NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(str(o.get("data", {}).get("text/plain", "")) for o in outputs)
    assert "RunResult(name='rides'" in text and "BKK" in text and "fare_per_km" in text
    assert (tmp_path / "warehouse").is_dir()
