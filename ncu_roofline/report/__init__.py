"""Report: plain-data contexts built from an analysis (the JSON schema), gates and inspect.

Imports core, readers, theory and analysis; never a renderer.
"""
