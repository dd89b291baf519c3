"""The summariser's prompts: Flue's structure and headings, our own words."""

from __future__ import annotations

SYSTEM = """You write context checkpoints. You will be shown a conversation between a user and an AI coding assistant; produce a structured summary of it in exactly the format you are given.

Do not carry on the conversation and do not answer anything asked in it. Output the summary and nothing else."""

_FORMAT_FIRST = """## Goal
[What the user wants done. List several goals if the session covered several tasks.]

## Constraints & Preferences
- [Requirements, limits or preferences the user stated]
- [Or "(none)" when there were none]

## Progress
### Done
- [x] [Work that is finished]

### In Progress
- [ ] [Work that was under way]

### Blocked
- [Anything stopping progress, if there is any]

## Key Decisions
- **[Decision]**: [Why, in a few words]

## Next Steps
1. [What should happen next, in order]

## Critical Context
- [Data, examples or references needed to carry on]
- [Or "(none)" when nothing applies]"""

FIRST = f"""Summarise the conversation above as a checkpoint that another model will use to carry on the work.

Follow this format EXACTLY:

{_FORMAT_FIRST}

Keep every section short. Quote file paths, function names and error messages exactly."""

UPDATE = """The conversation above holds NEW messages. Fold them into the existing summary given in the <previous-summary> tags.

Rules for the update:
- KEEP everything from the previous summary that still holds
- ADD the new progress, decisions and context
- MOVE items from "In Progress" to "Done" once they are finished
- REWRITE "Next Steps" to match where the work stands now
- KEEP file paths, function names and error messages exactly as written
- DROP only what is clearly no longer relevant

Follow this format EXACTLY:

## Goal
[The goals so far, plus any new ones]

## Constraints & Preferences
- [Those already known, plus any new ones]

## Progress
### Done
- [x] [Earlier finished items AND newly finished ones]

### In Progress
- [ ] [Current work, updated]

### Blocked
- [Current blockers; remove the resolved ones]

## Key Decisions
- **[Decision]**: [Why] (keep the earlier ones, add new ones)

## Next Steps
1. [Updated for the current state]

## Critical Context
- [Important context so far, plus anything new]

Keep every section short. Quote file paths, function names and error messages exactly."""

TURN_PREFIX = """What you see is the BEGINNING of a turn that was too long to keep. Its END (the most recent work) is kept as it is.

Summarise this beginning so the kept end makes sense on its own:

## Original Request
[What the user asked for in this turn]

## Early Progress
- [Decisions made and work done in this beginning]

## Context for Suffix
- [What the reader needs to understand the kept recent work]

Be brief. Keep only what is needed to follow the kept end."""

SPLIT_TURN_HEADING = "\n\n---\n\n**Turn Context (split turn):**\n\n"
NO_PRIOR_HISTORY = "No prior history."


def focus_note(focus: str) -> str:
    """Ours: `/compact <focus>` asks the summary to keep a particular thread in detail."""
    return f"\n\nThe user asked this summary to pay particular attention to: {focus.strip()}"
