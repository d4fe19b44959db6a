"""Core: the launch model, the metric registry, units, kernel names, the GPU table and file helpers.

Every other stage imports from here; this package imports from no other stage.
"""
