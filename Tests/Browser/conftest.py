"""Browser test of the web console: headless Chromium through Selenium against a running node.

run.sh starts the node and sets PUBNODE_URL (http://host:port), BROWSER_ADMIN_TOKEN and PUBNODE_BIN.
Chromium and chromedriver come from Debian (/usr/bin), so Selenium never downloads a browser.
With PUBNODE_SCREENSHOTS=1 each view is saved to Docs/console/<view>.png at 1280x800.
"""

import json
import math
import os
import pathlib
import re
import threading
import time
import urllib.request
import uuid

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

WAIT = 15
REPO = pathlib.Path(__file__).resolve().parents[2]
SHOTS = pathlib.Path(os.environ.get("BROWSER_SHOTS_DIR") or REPO / "Docs" / "console")


def pytest_configure(config):
    if not os.environ.get("PUBNODE_URL"):
        raise pytest.UsageError("PUBNODE_URL is not set; run Tests/Browser/run.sh")


@pytest.fixture(scope="session")
def base_url():
    return os.environ["PUBNODE_URL"].rstrip("/")


@pytest.fixture(scope="session")
def admin_token():
    return os.environ["BROWSER_ADMIN_TOKEN"]


@pytest.fixture(scope="session")
def names():
    """Channel and group names no earlier run used."""
    tag = uuid.uuid4().hex[:6]
    return {"channel": "room-" + tag, "group": "team-" + tag, "alice": "alice-" + tag, "bob": "bob-" + tag,
            "keyset": "sub-c-" + tag}


@pytest.fixture(scope="session")
def driver():
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,800", "--force-device-scale-factor=1", "--lang=en-US",
                "--force-prefers-reduced-motion"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(os.environ.get("CHROMEDRIVER_BIN", "/usr/bin/chromedriver"))
    browser = webdriver.Chrome(service=service, options=options)
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia",
                            {"features": [{"name": "prefers-color-scheme", "value": os.environ.get("BROWSER_COLOR_SCHEME", "light")}]})
    yield browser
    errors = [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
    browser.quit()
    # The refused logins (wrong token, node without one) are logged by Chromium as failed requests.
    refused_login = re.compile(r"/v1/admin/stats\S* - Failed to load resource: .*status of 40[13]")
    unexpected = [e for e in errors if not refused_login.search(e["message"])]
    assert not unexpected, "browser errors: %s" % json.dumps(unexpected, indent=1)


@pytest.fixture(scope="session")
def wait(driver):
    # The console re-renders its tables with every stats sample: an element found a moment ago may
    # be replaced before it is read, which only means "look again".
    return WebDriverWait(driver, WAIT, ignored_exceptions=(StaleElementReferenceException,))


@pytest.fixture(scope="session")
def shoot(driver):
    """shoot(name): saves the page as Docs/console/<name>.png when PUBNODE_SCREENSHOTS=1."""
    enabled = os.environ.get("PUBNODE_SCREENSHOTS") == "1"

    def take(name):
        if not enabled:
            return
        SHOTS.mkdir(parents=True, exist_ok=True)
        # No hover highlight: rest the pointer on the page title.
        title = driver.find_element(By.ID, "view-title")
        if title.is_displayed():
            ActionChains(driver).move_to_element(title).perform()
        # Let the latest sample render, then blur so no focus ring shows.
        driver.execute_script(
            "document.activeElement && document.activeElement.blur && document.activeElement.blur();"
            "document.getElementById('toasts').replaceChildren();")
        driver.save_screenshot(str(SHOTS / ("%s.png" % name)))

    return take


def publish(base_url, channel, message, uuid_="traffic"):
    """Publishes through the node's HTTP API (not the page)."""
    body = json.dumps(message).encode()
    request = urllib.request.Request(
        "%s/publish/demo/demo/0/%s/0?uuid=%s" % (base_url, channel, uuid_), data=body, method="POST",
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())


@pytest.fixture(scope="session")
def traffic(base_url):
    """Background publishes on a few channels, so the overview and channels views show activity."""
    stop = threading.Event()

    def run():
        step = 0
        while not stop.is_set():
            step += 1
            for i, channel in enumerate(("chat.lobby", "chat.support", "metrics.cpu", "orders")):
                if step % (i + 1) == 0:
                    try:
                        publish(base_url, channel, {"seq": step, "source": "traffic"})
                    except Exception:
                        pass
            stop.wait(0.05 + 0.04 * (1 + math.sin(step / 15)))

    def listen():
        # A subscriber on three of the channels, so deliveries and occupancy move too.
        cursor = "0"
        while not stop.is_set():
            url = "%s/v2/subscribe/demo/chat.lobby,chat.support,metrics.cpu/0?tt=%s&uuid=dashboard" % (base_url, cursor)
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    cursor = json.loads(response.read())["t"]["t"]
            except Exception:
                stop.wait(0.2)

    threads = [threading.Thread(target=run, daemon=True), threading.Thread(target=listen, daemon=True)]
    for thread in threads:
        thread.start()
    yield
    stop.set()
    for thread in threads:
        thread.join(timeout=6)


def visible(wait, css):
    return wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, css)))


def text_in(wait, css, text):
    return wait.until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, css), text))
