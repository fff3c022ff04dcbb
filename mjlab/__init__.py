"""The command line: the parser (:mod:`mjlab.cli`) and one handler per command
(:mod:`mjlab.commands`), at the top of the layers.
"""
