# nbgrader reads this from the repository root: instructors edit solutions/, learners get notebooks/.
c = get_config()  # noqa: F821 - provided by nbgrader
c.CourseDirectory.course_id = "agent-memory-workshop"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "notebooks"
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearOutput.enabled = True
