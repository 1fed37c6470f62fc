"""An adapter module that raises SystemExit while it is imported."""

raise SystemExit("misbehaving: exits on import")
