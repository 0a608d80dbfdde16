"""Python helpers for Scoville's result files (Debian's h5py, pandas and matplotlib only)."""
