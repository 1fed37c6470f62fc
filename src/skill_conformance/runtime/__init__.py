"""The scenario runtime: the pytest plugin, the run, each scenario's world and context.

Each scenario gets a :mod:`.world` on disk and a :mod:`.context` the steps share; the context
drives the implementation through the :mod:`.blocking` facade, whose bound :mod:`.progress`
judges; :mod:`.loading` finds the implementation ``--impl`` names; :mod:`.options` is the pytest
plugin and :mod:`.session` its hooks, which hand their work to the run (:mod:`.run`).
"""
