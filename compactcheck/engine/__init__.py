"""The run engine: fuzz targets on their views and tell what happens as a stream of events.

``core.Engine`` runs; ``events`` says what it tells; ``target_run`` fuzzes one target on one
view with a ``search`` (Hypothesis, shrinking, re-running witnesses; ``heap`` keeps it fast), a
``judge`` (the laws on each case, counted in a ``tally``) and its ``witnesses`` (the corpus);
``results`` assembles the report; ``config``, ``shards``, ``selection``, ``recording`` and
``plan`` say how; ``verdicts`` is the one policy that turns counts into verdicts; ``crash`` is
the call law; ``interrupts`` and ``draws`` keep a run stoppable and reproducible. Import from
the modules: this package imports nothing itself, so that the worker pool (which the engine
uses) can use ``interrupts`` without a cycle.
"""
