"""The laws, one package per view: each lists its laws in ``LAWS``, and the catalogue lists those.

Importing a view's package declares its laws and registers nothing, so the packages never need
the catalogue and the catalogue imports them like any other module.
"""
