from flue_tui.cli.flue import main

raise SystemExit(main())
