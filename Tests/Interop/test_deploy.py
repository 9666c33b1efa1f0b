"""The cluster deployment files in Deploy/: the compose file's shape, and Deploy/nginx.conf checked
by nginx itself and run in front of three local nodes on one Redis for a round trip with the SDK.

Docker is not needed: the upstream addresses node1..node3:8090 and the listen port of nginx.conf
are replaced by local ones. Without nginx these tests are skipped, unless PUBNODE_REQUIRE_NGINX=1.
"""

import os
import re
import shutil
import subprocess
import tempfile

import pytest
import yaml

from cluster import Cluster, http_get, wait_for
from conftest import Node, free_port, pubnode_binary, uniq

DEPLOY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "Deploy"))
NODES = ("node1", "node2", "node3")


def nginx_binary():
    path = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)
    if path is None:
        if os.environ.get("PUBNODE_REQUIRE_NGINX") == "1":
            pytest.fail("nginx is not installed and PUBNODE_REQUIRE_NGINX=1")
        pytest.skip("nginx is not installed (apt-get install nginx)")
    return path


def local_config(ports, listen):
    """Deploy/nginx.conf with the compose service addresses and the listen port made local."""
    with open(os.path.join(DEPLOY, "nginx.conf")) as f:
        text = f.read()
    for name, port in zip(NODES, ports):
        text, count = re.subn(r"\b%s:8090\b" % name, "127.0.0.1:%d" % port, text)
        assert count == 1, "nginx.conf must name %s:8090 once" % name
    text, count = re.subn(r"listen 8080;", "listen 127.0.0.1:%d;" % listen, text)
    assert count == 1, "nginx.conf must listen on 8080"
    return text


def nginx_args(prefix):
    return ["-p", prefix, "-c", os.path.join(prefix, "nginx.conf"), "-e", os.path.join(prefix, "error.log"),
            "-g", "pid %s;" % os.path.join(prefix, "nginx.pid")]


@pytest.fixture
def prefix():
    with tempfile.TemporaryDirectory() as directory:
        # nginx's workers run as an unprivileged user when started as root; they need to get in.
        os.chmod(directory, 0o755)
        yield directory


def test_the_compose_file_runs_three_nodes_on_redis_and_postgres_behind_nginx():
    with open(os.path.join(DEPLOY, "docker-compose.yml")) as f:
        compose = yaml.safe_load(f)
    services = compose["services"]
    assert set(services) == {"redis", "postgres", "nginx", *NODES}
    postgres = services["postgres"]
    assert postgres["image"] == "postgres:15"
    assert postgres["environment"]["POSTGRES_USER"] == "pubnode" and postgres["environment"]["POSTGRES_DB"] == "pubnode"
    assert any(volume.endswith(":/var/lib/postgresql/data") for volume in postgres["volumes"])
    assert "postgres-data" in compose["volumes"]
    help_text = subprocess.run([pubnode_binary(), "--help"], capture_output=True, text=True).stdout
    for name in NODES:
        node = services[name]
        command = node["command"]
        assert command[command.index("--redis") + 1] == "redis://redis:6379"
        assert command[command.index("--host") + 1] == "0.0.0.0"
        for flag in (part for part in command if part.startswith("--")):
            assert "  %s " % flag in help_text, "pubnode has no flag %s" % flag
        history = command[command.index("--history-url") + 1]
        assert re.fullmatch(r"postgres://pubnode:\$\{PUBNODE_DB_PASSWORD:-pubnode\}@postgres:5432/pubnode\?sslmode=disable",
                            history), history
        assert "redis" in node["depends_on"] and "postgres" in node["depends_on"]
        assert node["build"]["dockerfile"] == "Deploy/Dockerfile"
        assert os.path.exists(os.path.join(DEPLOY, "Dockerfile"))
        assert any(volume.endswith(":/var/lib/pubnode") for volume in node["volumes"])
    assert len({services[name]["volumes"][0] for name in NODES}) == 3, "each node needs its own data volume"
    nginx = services["nginx"]
    assert set(NODES) <= set(nginx["depends_on"])
    assert "./nginx.conf:/etc/nginx/nginx.conf:ro" in nginx["volumes"]
    assert "8080:8080" in nginx["ports"]


def test_nginx_conf_is_long_poll_friendly():
    with open(os.path.join(DEPLOY, "nginx.conf")) as f:
        text = f.read()
    for directive in ("least_conn;", "proxy_http_version 1.1;", 'proxy_set_header Connection "";',
                      "keepalive 64;", "location = /ready", "proxy_buffering off;"):
        assert directive in text, directive
    read_timeout = int(re.search(r"proxy_read_timeout (\d+)s;", text).group(1))
    assert read_timeout > 310, "proxy_read_timeout must outlast the longest long-poll (310 s)"
    directives = [line.split("#")[0] for line in text.splitlines()]
    assert not any("ip_hash" in line or "sticky" in line or "hash " in line for line in directives)


def test_nginx_accepts_the_configuration(prefix):
    binary = nginx_binary()
    with open(os.path.join(prefix, "nginx.conf"), "w") as f:
        f.write(local_config([free_port() for _ in NODES], free_port()))
    result = subprocess.run([binary, "-t", *nginx_args(prefix)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "test is successful" in result.stderr


def test_a_round_trip_through_nginx_in_front_of_three_nodes(prefix):
    binary = nginx_binary()
    cluster = Cluster(count=3)
    nginx = None
    try:
        listen = free_port()
        with open(os.path.join(prefix, "nginx.conf"), "w") as f:
            f.write(local_config([node.port for node in cluster.nodes], listen))
        nginx = subprocess.Popen([binary, *nginx_args(prefix), "-g", "daemon off;"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = "http://127.0.0.1:%d" % listen

        def ready_through_nginx():
            try:
                return http_get(base + "/ready", timeout=2)[0] == 200
            except OSError:
                return nginx.poll() is not None

        wait_for(ready_through_nginx, "nginx to answer /ready")
        assert nginx.poll() is None, open(os.path.join(prefix, "error.log")).read()

        balanced = Node("127.0.0.1:%d" % listen)
        try:
            channel = uniq("deploy")
            listeners = [balanced.subscribe(balanced.client("sub%d" % i), channels=[channel]) for i in range(3)]
            balanced.client("pub").publish().channel(channel).message({"through": "nginx"}).sync()
            for listener in listeners:
                assert listener.next_message().message == {"through": "nginx"}
            assert all(node.alive() for node in cluster.nodes)
        finally:
            balanced.close()
    finally:
        if nginx is not None and nginx.poll() is None:
            nginx.terminate()
            nginx.wait(timeout=10)
        cluster.close()
