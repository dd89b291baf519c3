"""Screens of the app: approval.py, picker.py (sessions), trust.py (project trust), rewind.py, models.py;
answered.py is the base every one of them answers through (once only)."""
