"""compactcheck: find the histories on which a context compactor breaks its contract."""
