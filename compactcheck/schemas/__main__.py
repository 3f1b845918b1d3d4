"""Regenerate the shipped JSON Schema files from the models."""

from pathlib import Path

from compactcheck.schemas import write_all

for path in write_all(Path(__file__).parent):
    print(path)
