"""Helpers the tests share (never imported from conftest.py or a test file)."""
