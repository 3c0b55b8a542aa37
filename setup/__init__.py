"""Scripts that prepare a database for the workshop (`python -m setup.bootstrap`)."""
