"""Reads Scoville HDF5 result files (docs/results-format.md) into pandas DataFrames.

`pandas.read_hdf` reads only files written by pandas/PyTables, so this is the supported path:

    import sys; sys.path.insert(0, "tools")
    from scoville.io import ResultFile
    with ResultFile("run.h5") as run:
        ops = run.table("ops")          # DataFrame, one column per dataset
        print(run.units("ops")["dur_s"])  # "s"
"""

import h5py
import pandas as pd

SCHEMA = "scoville.results"
SUPPORTED_SCHEMA_VERSIONS = (1,)


class ResultFormatError(Exception):
    """The file is not a Scoville result file this reader understands."""


def _text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


class ResultFile:
    """An open result file. Tables are groups with attrs kind="table", columns, nrows."""

    def __init__(self, path):
        self.path = path
        self._file = h5py.File(path, "r")
        schema = _text(self._file.attrs.get("schema", ""))
        version = int(self._file.attrs.get("schema_version", 0))
        if schema != SCHEMA or version not in SUPPORTED_SCHEMA_VERSIONS:
            self._file.close()
            raise ResultFormatError(
                f"{path}: schema '{schema}' version {version} is not one this reader knows "
                f"({SCHEMA} {SUPPORTED_SCHEMA_VERSIONS})")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._file.close()

    @property
    def provenance(self):
        """Root attributes: tool version, git sha, seed, command line, creation time."""
        return {key: (_text(v) if isinstance(v, (bytes, str)) else v.item() if hasattr(v, "item")
                      else v) for key, v in self._file.attrs.items()}

    def tables(self):
        """Names (paths) of every table group in the file, in file order."""
        found = []

        def visit(name, obj):
            if isinstance(obj, h5py.Group) and _text(obj.attrs.get("kind", "")) == "table":
                found.append(name)

        self._file.visititems(visit)
        return found

    def _group(self, name):
        if name not in self._file or _text(self._file[name].attrs.get("kind", "")) != "table":
            raise KeyError(f"{self.path}: no table '{name}' (tables: {', '.join(self.tables())})")
        return self._file[name]

    def columns(self, name):
        return [_text(c) for c in self._group(name).attrs["columns"]]

    def units(self, name):
        """Column -> unit string ('' for text columns, '1' for dimensionless counts)."""
        group = self._group(name)
        return {c: _text(group[c].attrs.get("units", "")) for c in self.columns(name)}

    def table(self, name):
        """The table as a DataFrame with columns in the file's order; text columns as str."""
        group = self._group(name)
        data = {}
        for column in self.columns(name):
            dataset = group[column]
            if h5py.check_string_dtype(dataset.dtype) is not None:
                data[column] = dataset.asstr()[()]
            else:
                data[column] = dataset[()]
        frame = pd.DataFrame(data)
        expected = int(group.attrs["nrows"])
        if len(frame) != expected:
            raise ResultFormatError(
                f"{self.path}: table '{name}' has {len(frame)} rows, nrows says {expected}")
        return frame

    def text(self, path):
        """A scalar string dataset, e.g. 'config/resolved_yaml'."""
        return self._file[path].asstr()[()]


def read_table(path, name):
    """One table of one file as a DataFrame."""
    with ResultFile(path) as run:
        return run.table(name)
