"""Structured results (`--json-schema`: finish / give_up) and `--max-budget-usd`."""

from __future__ import annotations

import json

from flue_tui.tools.result import FOOTER
from tests.fakellm import Call, Turn

SCHEMA = {
    "type": "object",
    "required": ["files", "count"],
    "additionalProperties": False,
    "properties": {"files": {"type": "array", "items": {"type": "string"}}, "count": {"type": "integer", "minimum": 1}},
}


def test_json_schema_violation_then_corrected_finish(fakellm, flue_main, tmp_path):
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(SCHEMA))
    fakellm.script(
        [
            Turn(calls=[Call("finish", {"files": ["a.py", 3], "count": "two"})]),  # caught by argument validation
            Turn(calls=[Call("finish", {"files": ["a.py"], "count": 0, "extra": True})]),  # caught by the schema
            Turn(calls=[Call("finish", {"files": ["a.py", "b.py"], "count": 2})]),
        ]
    )
    out = flue_main(
        "-p", "list the files", "--model", "openai/fake", "--output-format", "json", "--json-schema", str(schema_file)
    )
    assert out.code == 0, out.stderr
    obj = json.loads(out.stdout)
    assert obj["structured_output"] == {"files": ["a.py", "b.py"], "count": 2} and obj["is_error"] is False
    first = fakellm.requests[0]
    assert first["messages"][-1]["content"] == "list the files\n" + FOOTER
    finish_spec = next(t["function"] for t in first["tools"] if t["function"]["name"] == "finish")
    assert finish_spec["parameters"] == SCHEMA
    errors = [m["content"] for m in fakellm.requests[2]["messages"] if m["role"] == "tool"]
    assert errors[0] == (
        'Validation failed for tool "finish":\n  - files.1: must be string\n  - count: must be '
        'integer\n\nReceived arguments:\n{\n  "files": [\n    "a.py",\n    3\n  ],\n  "count": "two"\n}'
    )
    assert errors[1] == (
        "Result does not match the required schema: Additional properties are not allowed ('extra' "
        "was unexpected); 0 is less than the minimum of 1 (at count). Please call `finish` again "
        "with a corrected payload."
    )


def test_max_budget_stops_cleanly(fakellm, flue_main):
    # gpt-4o has a price in litellm's map, so the scripted usage costs real (pretend) money.
    fakellm.script([Turn(calls=[Call("bash", {"command": "true"})], usage=(100000, 1000), repeat=5)])
    out = flue_main("-p", "spend", "--model", "openai/gpt-4o", "--output-format", "json", "--max-budget-usd", "0.01")
    obj = json.loads(out.stdout)
    assert out.code == 1 and obj["subtype"] == "error_max_budget_usd" and obj["is_error"] is True
    assert obj["total_cost_usd"] > 0.01 and obj["num_turns"] == 1 and len(fakellm.requests) == 1
