"""A node started without an admin token: the console says its admin endpoints are disabled."""

import os
import socket
import subprocess
import tempfile
import threading

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import visible


def wait_for_listening(process):
    """The node's log lines up to its "listening" line (all of them if it exits first); the rest
    of its output is drained in the background so the node never blocks on a full pipe."""
    lines = []
    for line in process.stderr:
        lines.append(line)
        if "listening" in line:
            threading.Thread(target=lambda: process.stderr.read(), daemon=True).start()
            break
    return lines


@pytest.fixture(scope="module")
def open_node():
    binary = os.environ.get("PUBNODE_BIN")
    if not binary:
        pytest.skip("PUBNODE_BIN is not set")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as data:
        # No PUBNODE_* settings from the environment (PUBNODE_ADMIN_TOKEN would configure a token).
        env = {k: v for k, v in os.environ.items() if not k.startswith("PUBNODE_")}
        process = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", str(port), "--data-dir", data],
                                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            # The node logs "listening" once its port is bound: wait for that line, not for a time.
            log = []
            watcher = threading.Thread(target=lambda: log.extend(wait_for_listening(process)), daemon=True)
            watcher.start()
            watcher.join(timeout=30)
            if not any("listening" in line for line in log):
                raise AssertionError("the node without an admin token did not start: %s" % "".join(log[-5:]))
            yield "http://127.0.0.1:%d" % port
        finally:
            process.terminate()
            process.wait(timeout=10)


def test_login_explains_missing_admin_token(driver, wait, open_node):
    driver.get(open_node + "/console")
    visible(wait, "#login-token").send_keys("any-token-at-all-0123", Keys.ENTER)
    error = visible(wait, "#login-error")
    assert "no admin token configured" in error.text
    assert not driver.find_element(By.ID, "shell").is_displayed()
