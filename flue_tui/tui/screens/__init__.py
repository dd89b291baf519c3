"""Modal screens of the app: approval.py, picker.py (sessions), trust.py (project trust)."""
