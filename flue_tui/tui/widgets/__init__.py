"""The app's widgets: conversation, prompt, status bar, tool/task/reply blocks and views."""
