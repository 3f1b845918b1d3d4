"""The bottom layer: errors, answers, interrupts, the law selection, files."""
