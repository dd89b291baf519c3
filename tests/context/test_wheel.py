"""Packaged skills ship inside the built wheel and are found from there, not from the source tree."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_packaged_skills_install_with_the_wheel(tmp_path):
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is needed to build the wheel")
    built = subprocess.run(
        [uv, "build", "--wheel", "--out-dir", str(tmp_path / "dist"), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    wheel = next((tmp_path / "dist").glob("flue_tui-*.whl"))
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        zf.extractall(site)
    for skill in ("init", "review", "commit", "fix-tests"):
        assert f"flue_tui/_skills/{skill}/SKILL.md" in names
    # Run discovery from the unpacked wheel alone (-I: no site-packages, no source tree); pyyaml is
    # the one dependency discovery needs, so its directory is added explicitly.
    import yaml

    paths = [str(site), str(Path(yaml.__file__).parent.parent)]
    probe = (
        "import flue_tui.context.skills as s; d = s.packaged_skills_dir(); "
        "print(d); print(sorted(k.name for k in s.discover_skills('/nonexistent', packaged_dir=d).skills))"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path[:0] = {paths!r}; {probe}"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    where, found = out.stdout.splitlines()
    assert where == str(site / "flue_tui" / "_skills")
    assert found == "['commit', 'fix-tests', 'init', 'review']"
