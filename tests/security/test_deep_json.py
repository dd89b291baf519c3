"""JSON nested past Python's recursion limit, where flue reads JSON it did not write: an export
someone sent (`flue sessions import`) and Claude Code's stream-json input. One sentence each and
the rest goes on; before, json.loads's RecursionError escaped every `except ValueError`."""

from __future__ import annotations

import json

from tests.fakellm import Turn
from tests.test_sessions_import_many import export, ids, run

DEEP = '{"a":' * 20_000 + "1" + "}" * 20_000


def test_a_deeply_nested_export_is_named_and_the_others_go_in(capsys, tmp_path):
    db = tmp_path / "s.db"
    (tmp_path / "deep.json").write_text(DEEP)
    (tmp_path / "good.json").write_text(json.dumps(export(1)))
    code, _out, err = run(capsys, db, tmp_path, tmp_path / "deep.json", tmp_path / "good.json")
    assert code == 1 and "deep.json" in err and "Traceback" not in err, err
    assert ids(db) >= {"ses_many1"}


def test_a_deeply_nested_stream_json_line_is_ignored_in_one_line(fakellm, flue_main, tmp_path):
    fakellm.script([Turn(text="hello")])
    user = {"type": "user", "message": {"role": "user", "content": "hi"}}
    out = flue_main(
        "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
        "--model", "openai/fake", stdin=f"{DEEP}\n{json.dumps(user)}\n", cwd=tmp_path,
    )  # fmt: skip
    assert out.code == 0, out.stderr
    assert "Traceback" not in out.stderr and "not JSON" in out.stderr, out.stderr
    assert '"result": "hello"' in out.stdout or '"result":"hello"' in out.stdout, out.stdout
