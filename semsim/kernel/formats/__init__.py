"""Built-in formats, registered like any plugin (as llm's default plugins are)."""
