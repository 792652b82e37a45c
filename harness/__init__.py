"""Test support that tests and benchmarks both import: servers, clients, a class, data.

App code never imports it, and it imports neither tests nor benchmarks (import contracts).
"""
