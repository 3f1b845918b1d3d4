"""Compactions that already happened: pairs, audits, guards, transcripts."""
