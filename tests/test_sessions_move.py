"""Moving sessions between machines (export → import), redaction, and `sessions compact`."""

from __future__ import annotations

import json

from tests.fakellm import Call, Turn


def test_export_import_round_trip_with_task_children(fakellm, flue_main, flue_env, tmp_path):
    fakellm.script(
        [
            Turn(
                match="parent", calls=[Call("task", {"prompt": "child work", "agent": "flue-general"})], usage=(50, 5)
            ),
            Turn(match="child work", text="child answer", usage=(20, 2)),
            Turn(match="parent", text="parent answer", usage=(70, 7)),
        ]
    )
    assert flue_main("-p", "parent job", "--model", "openai/fake", "--session", "ci-run").code == 0
    exported = flue_main("sessions", "export", "ci-run", "--format", "json")
    assert exported.code == 0, exported.stderr
    original = json.loads(exported.stdout)
    other = tmp_path / "other.db"
    dump = tmp_path / "ci-run.json"
    dump.write_text(exported.stdout)
    out = flue_main("sessions", "import", str(dump), "--db", str(other))
    assert out.code == 0, out.stderr
    assert out.stdout.startswith("Imported ci-run (") and "1 task sessions" in out.stdout
    again = json.loads(flue_main("sessions", "export", "ci-run", "--format", "json", "--db", str(other)).stdout)
    assert again == original  # every message, the child session, the totals, ids and times
    assert original["session"]["input_tokens"] == 120 and len(original["tasks"]) == 1
    assert original["tasks"][0]["messages"][-1]["text"] == "child answer"
    again = flue_main("sessions", "import", str(dump), "--db", str(other))  # a re-run of a gathering job
    assert again.code == 0 and again.stdout.startswith("Skipped ci-run (") and again.stderr == ""


def test_import_rejects_garbage_without_traceback(flue_main, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    out = flue_main("sessions", "import", str(bad))
    assert out.code == 1 and out.stderr.startswith(f"flue: {bad} is not JSON") and "Traceback" not in out.stderr
    bad.write_text('{"hello": 1}')
    out = flue_main("sessions", "import", str(bad))
    assert out.code == 1 and "not a flue session export" in out.stderr


def test_export_redacts_secret_values(fakellm, flue_main, flue_env):
    env = dict(flue_env, DEPLOY_TOKEN="tok-supersecret-123")
    fakellm.script(
        [
            Turn(calls=[Call("bash", {"command": "echo the token is tok-supersecret-123"})]),
            Turn(text="I saw tok-supersecret-123"),
        ]
    )
    assert flue_main("-p", "go", "--model", "openai/fake", "--session", "leaky", env=env).code == 0
    md = flue_main("sessions", "export", "leaky", env=env)
    assert md.code == 0 and "tok-supersecret-123" not in md.stdout and "[redacted DEPLOY_TOKEN]" in md.stdout


def test_sessions_compact_keeps_full_history(fakellm, flue_main):
    # The second prompt alone is past the 8,000 kept tokens, so the cut falls right before it.
    long_prompt = "task two " + "x" * 40000
    fakellm.script([Turn(text="one done"), Turn(text="two done")])
    assert flue_main("-p", "task one", "--model", "openai/fake", "--session", "long").code == 0
    assert flue_main("-p", long_prompt, "--model", "openai/fake", "--session", "long").code == 0
    fakellm.script(
        [
            Turn(
                text="SUMMARY OF ONE",
                match=lambda body: body["messages"][0]["content"].startswith("You write context checkpoints"),
            )
        ]
    )
    out = flue_main("sessions", "compact", "long", "keep", "names")
    assert out.code == 0, out.stderr
    assert out.stdout == "long: Compacted.\n"
    summariser = fakellm.requests[-1]["messages"][1]["content"]
    assert "[User]: task one" in summariser and summariser.endswith("keep names")
    shown = flue_main("sessions", "export", "long", "--format", "json")
    exported = json.loads(shown.stdout)
    assert exported["session"]["input_tokens"] == 30  # two turns and the summariser, 10 prompt tokens each
    roles = [m["role"] for m in exported["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "compaction"]
    transcript = flue_main("sessions", "show", "long").stdout
    assert "task one" in transcript and "compacted here" in transcript  # nothing hidden, the marker visible
    markdown = flue_main("sessions", "export", "long").stdout
    assert "## Compacted here" in markdown and "SUMMARY OF ONE" in markdown
    fakellm.script([Turn(text="three done")])
    assert flue_main("-p", "task three", "--model", "openai/fake", "--session", "long").code == 0
    sent = [m["content"] for m in fakellm.requests[-1]["messages"][1:]]
    assert sent[0].startswith('<compaction type="context_summary">\nSUMMARY OF ONE')
    assert sent[1:] == [long_prompt, "two done", "task three"]
