"""The application: what uses the kernel and the plugins to do a user's job (the plugin
manager, reading files, parsing text with its cache and workers, the command line, reports,
the GEC studies, explanations, the Hugging Face module, the fuzz helpers and conformance kit).
docs/architecture.md maps its modules."""
