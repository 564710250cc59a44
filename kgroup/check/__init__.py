"""`kgroup check`: Burrow's health rules over a window of commits (history or sampling)."""
