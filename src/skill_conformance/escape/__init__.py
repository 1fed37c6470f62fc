"""Untrusted text made safe for where it goes: one module per target.

Every string an implementation or a file supplies (an observation, a reason, a scenario or
capability name, a label, a path) passes through the module of its target before it is written:
:mod:`.terminal` for text output, :mod:`.markdown` for a job summary or a pull request comment.
HTML is escaped by the standard library's ``html.escape`` where pages are made.
"""
