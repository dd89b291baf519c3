"""The only wiring point: concrete parts (model, sandbox, tools, policy, store) put together.

wiring.py  Runtime: builds a Session for a run from Settings
start.py   checks the session flags and starts a Session that resumes from / records to the store
flags.py   the session flags' argparse definitions (argparse only, for a fast `flue --help`)
"""
