"""Services the dashboard calls for work that reads boards (tile learning), so that
``server/`` builds no reader itself. The floor above the domain packages and below the
apps (the commands, the benchmarks, training, the dashboard): ARCHITECTURE.md and
``tests/test_import_graph.py``."""
