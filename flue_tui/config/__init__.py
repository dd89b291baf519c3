"""Settings and where they come from. Above core only; no provider, UI or database code.

settings.py  Settings and their precedence (defaults < user file < project file < env < flags)
files.py     reading and layering ~/.config/flue/config.toml and <cwd>/.flue/config.toml
paths.py     where flue keeps its files (config in XDG_CONFIG_HOME, data in XDG_DATA_HOME, or FLUE_HOME)
errors.py    ConfigError: bad settings, shown as one sentence
trust.py     which directories the user trusts, per file by SHA-256
project.py   what an untrusted project file may not loosen, and the [env] names it may never set
endpoints.py where a local model server is, from the environment (Ollama's address rules)
text.py      UTF-8 checks of what the user hands in (prompts, files named on the command line)
"""
