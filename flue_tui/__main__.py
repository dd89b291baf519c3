from flue_tui.cli.flue import entry

entry()
