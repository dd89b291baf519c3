"""Skill discovery, Flue's frontmatter errors, activate_skill and read_skill_resource."""

from __future__ import annotations

from pathlib import Path

import pytest

from flue_tui.context.skills import discover_skills, packaged_skills_dir, resource_path
from flue_tui.core.abort import AbortSignal
from flue_tui.tools.base import ToolContext
from flue_tui.tools.skill import ActivateSkillTool, ReadSkillResourceTool
from tests.context.conftest import write_skill
from tests.fakellm import Call, Turn

FENCE = (
    'is missing YAML frontmatter. Start SKILL.md with "---", include "name" and "description", '
    'then close the block with "---".'
)
CASES = [
    ("nofence", None, FENCE),
    ("notmap", "- a\n- b", "frontmatter must be a YAML mapping."),
    ("noname", "description: x", "must define frontmatter name as a non-empty string."),
    ("blankname", "name: '  '\ndescription: x", "must define frontmatter name as a non-empty string."),
    ("toolong", f"name: {'a' * 65}\ndescription: x", "name must be at most 64 characters."),
    (
        "Upper",
        "name: Upper\ndescription: x",
        'frontmatter name "Upper" must contain only lowercase ASCII letters, numbers, and hyphens. '
        'Use a spec-compliant value such as "review-pr".',
    ),
    (
        "-lead",
        "name: -lead\ndescription: x",
        'frontmatter name "-lead" must not start or end with a hyphen or contain consecutive hyphens. '
        'Use a spec-compliant value such as "review-pr".',
    ),
    (
        "a--b",
        "name: a--b\ndescription: x",
        'frontmatter name "a--b" must not start or end with a hyphen or contain consecutive hyphens. '
        'Use a spec-compliant value such as "review-pr".',
    ),
    (
        "mismatch",
        "name: other\ndescription: x",
        'declares frontmatter name "other", but Agent Skills requires it to match directory "mismatch"; '
        'names must match. Rename the directory or change "name" so they match.',
    ),
    ("nodesc", "name: nodesc", "must define frontmatter description as a non-empty string."),
    (
        "longdesc",
        f"name: longdesc\ndescription: {'é' * 1025}",
        'frontmatter description exceeds the 1024-character Agent Skills limit. Shorten "description" to a '
        "concise one-line summary.",
    ),
    (
        "compat",
        f"name: compat\ndescription: x\ncompatibility: {'c' * 501}",
        "compatibility must be at most 500 characters.",
    ),
    ("lic", "name: lic\ndescription: x\nlicense: [a]", "frontmatter license must be a string when provided."),
    ("meta", "name: meta\ndescription: x\nmetadata: [a]", "frontmatter metadata must be a string-to-string mapping."),
    (
        "tools",
        "name: tools\ndescription: x\nallowed-tools: {a: b}",
        "frontmatter allowed-tools must be a string when provided.",
    ),
]


@pytest.mark.parametrize(("directory", "frontmatter", "detail"), CASES, ids=[c[0] for c in CASES])
def test_each_frontmatter_error_is_a_visible_warning(tmp_path, directory, frontmatter, detail):
    if frontmatter is None:
        path = tmp_path / ".agents" / "skills" / directory / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_text("name: x\n")
    else:
        path = write_skill(tmp_path, directory, frontmatter)
    write_skill(tmp_path, "good", "name: good\ndescription: fine")
    found = discover_skills(str(tmp_path))
    assert [s.name for s in found.skills] == ["good"]
    assert found.warnings == [f'[flue] Skipping invalid workspace skill "{directory}": [flue] Skill {path} {detail}']


def test_invalid_yaml_keeps_flue_prefix(tmp_path):
    path = write_skill(tmp_path, "bad", "name: [unclosed\ndescription: x")
    warning = discover_skills(str(tmp_path)).warnings[0]
    assert warning.startswith(
        f'[flue] Skipping invalid workspace skill "bad": [flue] Skill {path} has invalid YAML frontmatter. '
    )


def test_bom_crlf_and_optional_fields_parse(tmp_path):
    path = tmp_path / ".agents" / "skills" / "crlf" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(
        "\ufeff---\r\nname: crlf\r\ndescription: Windows file\r\nmetadata:\r\n  k:\r\n---\r\nBody\r\n".encode()
    )
    found = discover_skills(str(tmp_path))
    assert found.warnings == [] and found.skills[0].description == "Windows file"


def test_workspace_skill_wins_a_clash_with_a_warning(tmp_path):
    write_skill(tmp_path, "review", "name: review\ndescription: mine")
    found = discover_skills(str(tmp_path), user_dir=None, packaged_dir=packaged_skills_dir())
    review = found.get("review")
    assert review.source == "workspace" and review.description == "mine"
    assert found.warnings == [
        f'[flue] The packaged skill "review" is hidden by the workspace skill of the same name '
        f"({tmp_path / '.agents/skills/review/SKILL.md'})."
    ]


def ctx() -> ToolContext:
    return ToolContext(call_id="c1", signal=AbortSignal())


async def test_activate_workspace_skill_rereads_body(tmp_path):
    path = write_skill(tmp_path, "deploy", "name: deploy\ndescription: Ship it", body="Old body.")
    tool = ActivateSkillTool(discover_skills(str(tmp_path)))
    path.write_text("---\nname: deploy\ndescription: Ship it\n---\n\n  New body.\n\n")
    result = await tool.execute({"name": "deploy"}, ctx())
    assert result.text == (
        'Run the skill named "deploy".\n\n<skill_instructions>\nNew body.\n</skill_instructions>\n\n'
        "Supporting skill resources are available relative to this workspace skill directory but are not loaded "
        f"into context unless needed:\n<skill_resources>\n- Base directory: {path.parent}\n"
        "- Resolve relative resource paths from this directory and read only the files you need.\n"
        "</skill_resources>"
    )
    assert not result.is_error and result.details["skill"] == "deploy"
    missing = await tool.execute({"name": "nope"}, ctx())
    assert missing.text == 'Skill "nope" is not available. Available skills: deploy.' and not missing.is_error


def make_packaged(root: Path) -> Path:
    skill = root / "helper"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: helper\ndescription: Helps\n---\nUse scripts/run.sh.\n")
    (skill / "scripts" / "run.sh").write_text("#!/bin/sh\necho one\necho two\n")
    (skill / "logo.bin").write_bytes(bytes(range(256)) * 2)
    return skill


async def test_packaged_skill_activation_and_resources(tmp_path):
    packaged = tmp_path / "packaged"
    make_packaged(packaged)
    skills = discover_skills(str(tmp_path / "ws"), packaged_dir=packaged)
    helper = skills.get("helper")
    assert helper.skill_id.startswith("skill:helper:") and len(helper.skill_id) == len("skill:helper:") + 16
    encoded = helper.skill_id.replace(":", "%3A")
    result = await ActivateSkillTool(skills).execute({"name": "helper"}, ctx())
    assert result.text == (
        'Run the skill named "helper".\n\n<skill_instructions>\nUse scripts/run.sh.\n</skill_instructions>\n\n'
        "Supporting skill resources are available but are not loaded into context unless needed:\n"
        "<skill_resources>\n"
        f"- logo.bin → read_skill_resource /.flue/packaged-skills/{encoded}/logo.bin\n"
        f"- scripts/run.sh → read_skill_resource /.flue/packaged-skills/{encoded}/scripts/run.sh\n"
        "</skill_resources>"
    )
    reader = ReadSkillResourceTool(skills)
    script = await reader.execute({"path": resource_path(helper, "scripts/run.sh"), "offset": 2, "limit": 1}, ctx())
    assert script.text == "echo one"
    plain = await reader.execute({"path": f"/.flue/packaged-skills/{helper.skill_id}/scripts/run.sh"}, ctx())
    assert plain.text == "#!/bin/sh\necho one\necho two\n"
    binary = await reader.execute({"path": resource_path(helper, "logo.bin")}, ctx())
    assert all(len(line) <= 76 for line in binary.text.split("\n")) and binary.text.startswith("AAECAwQF")
    from flue_tui.core.abort import ToolError

    with pytest.raises(ToolError) as err:
        await reader.execute({"path": "/.flue/packaged-skills/nope/x"}, ctx())
    assert str(err.value) == "[flue] Packaged skill file not found: /.flue/packaged-skills/nope/x"


async def test_model_activates_a_skill_through_the_loop(fakellm, runtime_for, tmp_path):
    write_skill(tmp_path, "deploy", "name: deploy\ndescription: Ship it", body="Run make deploy.")
    fakellm.script([Turn(calls=[Call("activate_skill", {"name": "deploy"})]), Turn(text="done")])
    session, _ = runtime_for(tmp_path).new_session()
    assert "activate_skill" in session.tools
    await session.prompt("deploy please")
    tool_msg = [m for m in fakellm.requests[1]["messages"] if m["role"] == "tool"][0]
    assert tool_msg["content"].startswith('Run the skill named "deploy".\n\n<skill_instructions>\nRun make deploy.')
