"""The composition root: the `autograder` command and the one settings module."""
