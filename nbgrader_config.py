# nbgrader reads this from the repository root: instructors edit solutions/, learners get notebooks/.
c = get_config()  # noqa: F821 - provided by nbgrader
c.CourseDirectory.course_id = "agent-memory-workshop"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "notebooks"
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearOutput.enabled = True
# Hints (workshop_lib/hints): no penalty by default. To take a share of a TODO's points from a
# learner who opened a hint level, e.g. half for the near-solution outline:
# c.Workshop.hint_penalty = {3: 0.5}
