"""The agent: Session, the loop, compaction. Knows nothing of litellm, SQLite or Textual.

session.py     Session: history, prompt(), abort(), subscribers
loop.py        one operation: model turn -> tools -> next turn; toolrun.py runs one batch of calls
validation.py  tool-argument coercion and validation (TypeBox semantics)
prompt.py      the system prompt; compaction.py, compaction_prompts.py  summarising old context
"""
