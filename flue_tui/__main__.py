from flue_tui.cli import main

raise SystemExit(main())
