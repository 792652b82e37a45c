"""Deployment tests: Debian's nginx in front of real `streamlit run` replicas on loopback.

`make test` installs nginx and redis-server with apt when they are missing (as
root). Without them these tests are skipped on a developer's machine but fail
when ``CI`` is set. Select them with ``-m deploy``.
"""

from __future__ import annotations

import os

import pytest

from harness.cluster import nginx_available, redis_available


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/deploy" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.deploy)


@pytest.fixture(scope="session")
def nginx() -> None:
    if not nginx_available():
        if os.environ.get("CI"):
            pytest.fail("nginx is missing: `make test` installs it with apt (as root)")
        pytest.skip("nginx is not installed (apt-get install nginx)")


@pytest.fixture(scope="session")
def redis_server() -> None:
    """Debian's redis-server is there (harness.cluster starts one per cluster)."""
    if not redis_available():
        if os.environ.get("CI"):
            pytest.fail("redis-server is missing: `make test` installs it with apt (as root)")
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
