"""Shared by the Python tool tests: loads a tool under tools/ as a module, and collects failed
checks so that a test reports every one before it exits non-zero."""
import importlib.machinery
import importlib.util
import os
import sys


def load(source_dir, relative_path, name):
    """The tool at SOURCE_DIR/relative_path, imported as module `name` (an explicit source
    loader, so that a tool without a .py suffix loads too)."""
    loader = importlib.machinery.SourceFileLoader(name, os.path.join(source_dir, relative_path))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    loader.exec_module(module)
    return module


class Checks:
    def __init__(self):
        self.failures = []

    def __call__(self, condition, message):
        if not condition:
            self.failures.append(message)

    def finish(self, name):
        """Prints the failures and exits 1, or prints that every check of `name` passed."""
        if self.failures:
            for f in self.failures:
                print("FAIL:", f)
            sys.exit(1)
        print("%s: all checks passed" % name)
