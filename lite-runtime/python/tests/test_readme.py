"""The README's Python examples run as written (from the repository's root), the notebook
example printing a difference within the conformance rule."""

import contextlib
import io
import re

import pytest

from conftest import REPO


def blocks() -> "list[str]":
    text = (REPO / "README.md").read_text()
    section = text.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_readme_has_three_examples() -> None:
    assert len(blocks()) == 3


@pytest.mark.parametrize("k", range(3))
def test_readme_example_runs(k: int, monkeypatch: pytest.MonkeyPatch) -> None:
    code = blocks()[k]
    if "ai_edge_litert" in code:
        pytest.importorskip("ai_edge_litert")
    monkeypatch.chdir(REPO)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md example %d" % k, "exec"), {})
    if "largest difference" in code:
        difference = float(out.getvalue().rsplit(":", 1)[1])
        assert difference <= 1e-5
        assert "largest difference: %r" % difference in (REPO / "README.md").read_text()


def test_the_example_script_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ai_edge_litert")
    monkeypatch.chdir(REPO)
    path = REPO / "lite-runtime" / "python" / "examples" / "compare_litert.py"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(path.read_text(), str(path), "exec"), {"__name__": "__main__"})
    assert "largest difference" in out.getvalue()
