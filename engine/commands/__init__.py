"""The ``mjlab`` command handlers: the top layer, above the engine and the analysis.

Each handler takes the parsed arguments (an :class:`argparse.Namespace` built by
:mod:`engine.cli`) and returns the exit code; it checks its input, calls domain
functions that take plain Python values, and prints. The domain modules below never see
a Namespace. Every module here imports only :mod:`engine.errors` at its top and the
engine and analysis inside its handlers, so that ``mjlab --help`` stays quick.

- :mod:`.hand`: ``hand``; :mod:`.exact`: ``exact``; :mod:`.bench`: ``bench``;
  :mod:`.warmup`: ``warmup``;
- :mod:`.variants`: ``variants``, ``score``, ``replay``; :mod:`.rules`: ``rules``;
- :mod:`.simulate`: ``simulate``; :mod:`.summarize`: ``summarize``, ``sweep``;
- :mod:`.report`: ``report``; :mod:`.bots`: ``fit``, ``tune``; :mod:`.ladder`: ``ladder``;
- :mod:`.rescore`: ``rescore``; :mod:`.design`: ``design``.
"""
