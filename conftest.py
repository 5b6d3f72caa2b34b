"""pytest's settings that pyproject.toml cannot hold."""

# Old import paths kept for notebooks and users after a module moved: each file makes its old name the moved
# module itself (sys.modules), so it is no module of its own to collect; its doctests run at the new path.
collect_ignore = [f"cabo_kit/tournament/{name}.py" for name in ("ratings", "outcomes", "texts")]
