"""Run the deployment of deploy/ on loopback: Debian's nginx in front of N `streamlit run` replicas.

The nginx configuration is deploy/nginx/default.conf.template itself, with its
two placeholders filled in and wrapped in a minimal main configuration in a
temporary directory (pid, logs and temp files there too). Used by
tests/deploy and by the proxy benchmark.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hosting.local_server import ROOT, free_port, start_server, url_of, wait_healthy

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
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


@dataclass
class Cluster:
    """A running proxy and its replicas (by port)."""

    url: str
    replicas: dict[int, subprocess.Popen] = field(default_factory=dict)
    proxy: subprocess.Popen | None = None
    directory: Path | None = None

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


@contextlib.contextmanager
def running_cluster(n_replicas: int = 3, script: Path = ROOT / "app.py") -> Iterator[Cluster]:
    """nginx on a free loopback port in front of ``n_replicas`` fresh servers."""
    directory = Path(tempfile.mkdtemp(prefix="st-cluster-"))
    cluster = Cluster(url="", directory=directory)
    try:
        for _ in range(n_replicas):
            port = free_port()
            cluster.replicas[port] = start_server(script, port)
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
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(directory, ignore_errors=True)
