"""Test helpers shared by the test packages."""
