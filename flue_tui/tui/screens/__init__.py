"""Screens of the app: main.py the main one (Textual's, with its layout note fixed), approval.py,
picker.py (sessions), trust.py (project trust), rewind.py, confirm.py (a yes/no before replacing
files), models.py; answered.py is the base every modal one answers through (once only)."""
