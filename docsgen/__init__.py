"""The generated reference of the documentation site: `python -m docsgen` writes docs/reference/.

Every page is made from the code it describes (the command line's parser, the library's public
names, the options table, the catalogue of laws, the shipped JSON Schemas, the exit codes), so
that it cannot drift; `python -m docsgen --check` names the pages that did.
"""
