"""What the scripts that turn published launch configurations into validation scenarios share:
reading a git directory, and writing the scenarios as tests/validation/data/*-configs.json."""

import json
import subprocess
import sys


def git(git_dir, *args):
    """The output of `git --git-dir GIT_DIR ARGS...`."""
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True, capture_output=True,
                          text=True).stdout


def write_recipes(source, recipes, skipped=None):
    """{"source", "recipes": [{"name", "scenario"}], "skipped"?} to stdout, as the validation
    test's check_recipes_fit reads it."""
    document = {"source": source, "recipes": recipes}
    if skipped is not None:
        document["skipped"] = skipped
    json.dump(document, sys.stdout, indent=1)
    sys.stdout.write("\n")
