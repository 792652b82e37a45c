"""Run the deployment of deploy/ on loopback: Debian's nginx in front of N `streamlit run` replicas.

The nginx configuration is deploy/nginx/default.conf.template itself, with its
two placeholders filled in and wrapped in a minimal main configuration in a
temporary directory (pid, logs and temp files there too). With ``redis=True``,
Debian's redis-server runs there too (no persistence) and every replica gets
its URL in ``ATTENTION_CLASS_STORE``: one class store shared by the replicas,
as deploy/compose.yaml and deploy/k8s run it. Used by tests/deploy and by the
proxy, capacity and class-session benchmarks.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from harness.local_server import (
    LOOPBACK,
    ROOT,
    free_port,
    stop,
    streamlit_command,
    url_of,
    wait_healthy,
)
from hosting.classroom.settings import SETTING as CLASS_STORE_SETTING

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"
TEMPLATE = ROOT / "deploy" / "nginx" / "default.conf.template"
# A test-only header naming the replica that answered (never in the shipped file).
UPSTREAM_HEADER = "    add_header X-Upstream $upstream_addr always;\n"

MAIN_CONF = """\
{user}worker_processes 1;
worker_rlimit_nofile 8192;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {tmp}/client_body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    types {{
        text/html html;
        text/css css;
        application/javascript js;
    }}
    include {tmp}/streamlit.conf;
}}
"""


def nginx_available() -> bool:
    return Path(NGINX).exists()


def redis_available() -> bool:
    return Path(REDIS).exists()


@dataclass
class Cluster:
    """A running proxy and its replicas (by port)."""

    url: str
    replicas: dict[int, subprocess.Popen] = field(default_factory=dict)
    proxy: subprocess.Popen | None = None
    directory: Path | None = None
    redis: subprocess.Popen | None = None
    redis_url: str = ""  #: the replicas' shared class store ("" without Redis)

    def replica_url(self, port: int) -> str:
        return url_of(port)

    def kill_replica(self, port: int) -> None:
        """SIGKILL, as a crashed or evicted replica: its sockets close at once."""
        process = self.replicas.pop(port)
        process.kill()
        process.wait(timeout=10)


def render_config(ports: list[int], listen: int, debug_header: bool = True) -> str:
    """The shipped template with loopback replicas and a loopback listen address."""
    servers = " ".join(f"server 127.0.0.1:{port};" for port in ports)
    text = TEMPLATE.read_text()
    text = text.replace("${STREAMLIT_UPSTREAMS}", servers)
    text = text.replace("${NGINX_PORT}", f"127.0.0.1:{listen}")
    if debug_header:
        text = text.replace("    location / {", UPSTREAM_HEADER + "    location / {", 1)
    return text


def start_proxy(ports: list[int], listen: int, directory: Path) -> subprocess.Popen:
    (directory / "streamlit.conf").write_text(render_config(ports, listen))
    user = "user root;\n" if os.geteuid() == 0 else ""
    (directory / "nginx.conf").write_text(MAIN_CONF.format(tmp=directory, user=user))
    conf = str(directory / "nginx.conf")
    error_log = str(directory / "error.log")
    subprocess.run([NGINX, "-t", "-q", "-e", error_log, "-c", conf], check=True)
    return subprocess.Popen(
        [NGINX, "-e", error_log, "-c", conf, "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _wait_proxy(url: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("nginx did not answer")


def start_redis(port: int, directory: Path) -> subprocess.Popen:
    """Debian's redis-server on loopback ``port``: no snapshots, no append-only file."""
    return subprocess.Popen(
        [
            *(REDIS, "--port", str(port), "--bind", LOOPBACK, "--dir", str(directory)),
            *("--save", "", "--appendonly", "no"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def wait_redis(process: subprocess.Popen, port: int, timeout: float = 30.0) -> None:
    """Return once redis answers PING on ``port``; fail if it exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"redis-server exited early with code {process.returncode}")
        try:
            with socket.create_connection((LOOPBACK, port), timeout=2) as connection:
                connection.sendall(b"PING\r\n")
                if connection.recv(64).startswith(b"+PONG"):
                    return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("redis-server did not answer PING in time")


def start_replica(script: Path, port: int, env: dict[str, str]) -> subprocess.Popen:
    """One `streamlit run` replica (harness.local_server's command) with ``env`` added."""
    return subprocess.Popen(
        streamlit_command(script, port),
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )


@contextlib.contextmanager
def running_cluster(
    n_replicas: int = 3, script: Path = ROOT / "app.py", redis: bool = False
) -> Iterator[Cluster]:
    """nginx on a free loopback port in front of ``n_replicas`` fresh servers.

    ``redis``: start a redis-server too and give every replica its URL as the
    class store (``Cluster.redis_url``).
    """
    directory = Path(tempfile.mkdtemp(prefix="st-cluster-"))
    cluster = Cluster(url="", directory=directory)
    env: dict[str, str] = {}
    try:
        if redis:
            redis_port = free_port()
            cluster.redis = start_redis(redis_port, directory)
            wait_redis(cluster.redis, redis_port)
            cluster.redis_url = f"redis://{LOOPBACK}:{redis_port}/0"
            env[CLASS_STORE_SETTING] = cluster.redis_url
        for _ in range(n_replicas):
            port = free_port()
            cluster.replicas[port] = start_replica(script, port, env)
        for port, process in cluster.replicas.items():
            wait_healthy(process, url_of(port), timeout=120)
        listen = free_port()
        cluster.proxy = start_proxy(list(cluster.replicas), listen, directory)
        cluster.url = url_of(listen)
        _wait_proxy(cluster.url)
        yield cluster
    finally:
        if cluster.proxy is not None:
            cluster.proxy.terminate()
            cluster.proxy.wait(timeout=10)
        for process in cluster.replicas.values():
            process.terminate()
        for process in cluster.replicas.values():
            stop(process)
        if cluster.redis is not None:
            stop(cluster.redis)
        shutil.rmtree(directory, ignore_errors=True)
