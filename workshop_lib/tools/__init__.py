"""Instructor and command-line tools: the `workshop` CLI, doctor, the nbgrader course glue
(course, release) and class grading."""
