"""The scenario runtime: the pytest plugin, scenario world and context, blocking facade, --impl.

Each scenario gets a :mod:`.world` on disk and a :mod:`.context` the steps share; the context
drives the implementation through the :mod:`.blocking` facade; :mod:`.loading` finds the
implementation ``--impl`` names; :mod:`.plugin` turns scenarios into verdicts.
"""
