"""The console end to end, in order: login, overview, debug clients, presence, history, groups,
hooks, keysets, channels. One browser session for the whole module."""

import os
import re

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from conftest import publish, text_in, visible

pytestmark = pytest.mark.usefixtures("traffic")


def keys(driver, *sequence):
    """Types shortcut keys on the page (not into a field)."""
    body = driver.find_element(By.TAG_NAME, "body")
    driver.execute_script("document.activeElement && document.activeElement.blur && document.activeElement.blur()")
    for key in sequence:
        body.send_keys(key)


def on_view(wait, view):
    wait.until(lambda d: d.find_element(By.ID, "view").get_attribute("data-view") == view)


def client_panel(driver, uuid):
    return driver.find_element(By.CSS_SELECTOR, '.client[data-uuid="%s"]' % uuid)


def add_client(driver, wait, uuid, channel, state=""):
    driver.find_element(By.CSS_SELECTOR, "[data-action=add-client]").click()
    panel = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".client")[-1])
    field = lambda name: panel.find_element(By.CSS_SELECTOR, "[data-field=%s]" % name)
    field("uuid").clear()
    field("uuid").send_keys(uuid)
    if state:
        field("state").send_keys(state)
    field("channels").send_keys(channel, Keys.ENTER)  # Enter subscribes
    wait.until(lambda d: client_panel(d, uuid).find_element(By.CSS_SELECTOR, "[data-status]").text == "listening")
    return client_panel(driver, uuid)


def test_wrong_token_is_refused(driver, wait, base_url):
    driver.get(base_url + "/console")
    token = visible(wait, "#login-token")
    token.send_keys("not-the-admin-token-at-all", Keys.ENTER)
    error = visible(wait, "#login-error")
    assert "Wrong admin token" in error.text
    assert not driver.find_element(By.ID, "shell").is_displayed()


def test_login_shows_overview_numbers(driver, wait, admin_token, shoot):
    visible(wait, "#login-token").send_keys(admin_token, Keys.ENTER)
    visible(wait, "#shell")
    on_view(wait, "overview")
    value = lambda d: d.find_element(By.CSS_SELECTOR, "[data-test=connections] .value").text
    wait.until(lambda d: re.fullmatch(r"[\d,]+", value(d)))
    # Rates need two samples: the publish rate becomes a number.
    wait.until(lambda d: re.fullmatch(r"[\d.]+", d.find_element(By.CSS_SELECTOR, "[data-test=publish-rate] .value").text))
    assert int(driver.find_element(By.CSS_SELECTOR, "[data-test=publishes] .value").text.replace(",", "")) >= 0


def test_debug_client_sees_published_message(driver, wait, names):
    keys(driver, "g", "d")
    on_view(wait, "clients")
    alice = add_client(driver, wait, names["alice"], names["channel"], state='{"mood":"focused"}')
    # The page publishes through alice's form; Enter in the message field submits.
    channel_field = alice.find_element(By.CSS_SELECTOR, "[data-field=publish-channel]")
    assert channel_field.get_attribute("value") == names["channel"]
    message = alice.find_element(By.CSS_SELECTOR, "[data-field=message]")
    message.clear()
    message.send_keys('{"text":"hello from the console"}', Keys.ENTER)
    received = wait.until(lambda d: [line for line in client_panel(d, names["alice"]).find_elements(
        By.CSS_SELECTOR, '.log-line[data-kind=message]') if "hello from the console" in line.text])
    timetoken = received[0].get_attribute("data-tt")
    assert re.fullmatch(r"\d{17}", timetoken)
    assert timetoken in received[0].text
    sent = client_panel(driver, names["alice"]).find_element(By.CSS_SELECTOR, ".log-line[data-kind=sent]")
    assert sent.get_attribute("data-tt") == timetoken


def test_second_client_join_is_visible(driver, wait, names, shoot):
    add_client(driver, wait, names["bob"], names["channel"])
    wait.until(lambda d: [line for line in client_panel(d, names["alice"]).find_elements(
        By.CSS_SELECTOR, ".log-line[data-kind=presence]") if "join" in line.text and names["bob"] in line.text])
    bob = client_panel(driver, names["bob"])
    bob.find_element(By.CSS_SELECTOR, "[data-field=message]").clear()
    bob.find_element(By.CSS_SELECTOR, "[data-field=message]").send_keys('{"ok":1}')
    bob.find_element(By.CSS_SELECTOR, "[data-action=signal]").click()
    wait.until(lambda d: client_panel(d, names["alice"]).find_elements(By.CSS_SELECTOR, ".log-line[data-kind=signal]"))
    shoot("clients")


def test_presence_lists_uuid_with_state(driver, wait, names, shoot):
    keys(driver, "4")
    on_view(wait, "presence")
    keys(driver, "/")  # focuses the channel field
    active = driver.switch_to.active_element
    assert active.get_attribute("data-field") == "channels"
    active.send_keys(names["channel"], Keys.ENTER)
    text_in(wait, "[data-test=presence]", names["alice"])
    table = driver.find_element(By.CSS_SELECTOR, "[data-test=presence]")
    row = [r for r in table.find_elements(By.CSS_SELECTOR, "tbody tr") if names["alice"] in r.text][0]
    assert '"mood":"focused"' in row.text
    assert names["bob"] in table.text
    uuid_field = driver.find_element(By.CSS_SELECTOR, "[data-field=uuid]")
    uuid_field.send_keys(names["alice"], Keys.ENTER)
    text_in(wait, "[data-test=where-now]", names["channel"])
    shoot("presence")


def test_history_fetch_count_delete(driver, wait, names, shoot):
    keys(driver, "g", "h")
    on_view(wait, "history")
    channel = driver.find_element(By.CSS_SELECTOR, "[data-field=channel]")
    channel.send_keys(names["channel"], Keys.ENTER)
    text_in(wait, "table[data-test=history]", "hello from the console")
    assert names["alice"] in driver.find_element(By.CSS_SELECTOR, "table[data-test=history]").text
    driver.find_element(By.CSS_SELECTOR, "[data-action=count]").click()
    text_in(wait, "[data-test=count-value]", "1")
    shoot("history")
    driver.find_element(By.CSS_SELECTOR, "[data-action=delete]").click()
    visible(wait, "#confirm-dialog")
    driver.find_element(By.ID, "confirm-ok").click()
    visible(wait, "[data-test=history-empty]")
    driver.find_element(By.CSS_SELECTOR, "[data-action=count]").click()
    text_in(wait, "[data-test=count-value]", "0")


def test_channel_group_add_and_list(driver, wait, names, shoot, base_url):
    keys(driver, "6")
    on_view(wait, "groups")
    driver.find_element(By.CSS_SELECTOR, "[data-field=group]").send_keys(names["group"])
    field = driver.find_element(By.CSS_SELECTOR, "[data-field=group-channels]")
    field.send_keys("%s, news, alerts" % names["channel"], Keys.ENTER)
    text_in(wait, "table[data-test=groups]", names["group"])
    text_in(wait, "table[data-test=group-channels]", "alerts")
    channels = driver.find_element(By.CSS_SELECTOR, "table[data-test=group-channels]").text
    assert names["channel"] in channels and "news" in channels
    shoot("groups")
    # A debug client subscribed to the group receives what is published on a member channel.
    keys(driver, "3")
    on_view(wait, "clients")
    driver.find_element(By.CSS_SELECTOR, "[data-action=add-client]").click()
    panel = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".client")[-1])
    uuid = panel.get_attribute("data-uuid")
    panel.find_element(By.CSS_SELECTOR, "[data-field=groups]").send_keys(names["group"], Keys.ENTER)
    wait.until(lambda d: client_panel(d, uuid).find_element(By.CSS_SELECTOR, "[data-status]").text == "listening")
    publish(base_url, "alerts", {"alert": "disk"})
    line = wait.until(lambda d: [l for l in client_panel(d, uuid).find_elements(
        By.CSS_SELECTOR, ".log-line[data-kind=message]") if '"alert":"disk"' in l.text])[0]
    assert "via " + names["group"] in line.text
    client_panel(driver, uuid).find_element(By.CSS_SELECTOR, "[data-action=toggle]").click()  # unsubscribe
    wait.until(lambda d: client_panel(d, uuid).find_element(By.CSS_SELECTOR, "[data-status]").text == "stopped")


def test_hooks_view_renders(driver, wait, shoot):
    keys(driver, "g", "w")
    on_view(wait, "hooks")
    text_in(wait, "[data-test=hooks]", "audit")
    # The audit hook's target refuses connections: its events become dead letters.
    text_in(wait, "[data-test=dead-letters]", "audit")
    shoot("hooks")


def test_keysets_create_and_grant(driver, wait, names, shoot):
    keys(driver, "g", "k")
    on_view(wait, "keysets")
    text_in(wait, "[data-test=keysets]", "demo")
    driver.find_element(By.CSS_SELECTOR, "[data-field=new-sub]").send_keys(names["keyset"], Keys.ENTER)
    text_in(wait, "[data-test=new-secret]", names["keyset"])
    text_in(wait, "[data-test=keysets]", names["keyset"])
    select = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "[data-field=grant-keyset]")))
    select.find_element(By.CSS_SELECTOR, 'option[value="%s"]' % names["keyset"]).click()
    assert driver.find_element(By.CSS_SELECTOR, "[data-field=grant-secret]").get_attribute("value")
    driver.find_element(By.CSS_SELECTOR, ".perm-row input[type=text]").send_keys("secure-room")
    driver.find_element(By.CSS_SELECTOR, "[data-action=grant]").click()
    token = visible(wait, "[data-test=token]").text
    assert re.fullmatch(r"[A-Za-z0-9_=-]{40,}", token)
    # The console reads the token back: the granted channel and its permissions.
    details = driver.find_element(By.CSS_SELECTOR, "[data-test=token] + .stack")
    assert "secure-room" in details.text and "read, write" in details.text
    driver.execute_script("document.getElementById('view').scrollTop = 0")
    shoot("keysets")
    # A debug client on the Access Manager keyset with that token subscribes and publishes.
    driver.find_element(By.CSS_SELECTOR, "[data-action=token-client]").click()
    on_view(wait, "clients")
    client = wait.until(lambda d: [c for c in d.find_elements(By.CSS_SELECTOR, ".client")
                                   if c.find_element(By.CSS_SELECTOR, "[data-field=auth]").get_attribute("value") == token][0])
    uuid = client.get_attribute("data-uuid")
    assert driver.switch_to.active_element.get_attribute("data-field") == "channels"
    driver.switch_to.active_element.send_keys("secure-room", Keys.ENTER)
    wait.until(lambda d: client_panel(d, uuid).find_element(By.CSS_SELECTOR, "[data-status]").text == "listening")
    message = client_panel(driver, uuid).find_element(By.CSS_SELECTOR, "[data-field=message]")
    message.clear()
    message.send_keys('{"secure":true}', Keys.ENTER)
    wait.until(lambda d: [line for line in client_panel(d, uuid).find_elements(
        By.CSS_SELECTOR, ".log-line[data-kind=message]") if '"secure":true' in line.text])


def test_channels_view_and_inspector(driver, wait, names, shoot):
    keys(driver, "g", "c")
    on_view(wait, "channels")
    text_in(wait, "table[data-test=channels]", names["channel"])
    keys(driver, "/")
    driver.switch_to.active_element.send_keys(names["channel"])
    # The filter leaves the channel and its presence channel (-pnpres); the table refreshes with
    # every stats sample, so find and click the row in one step.
    wait.until(lambda d: d.execute_script(
        "const rows = [...document.querySelectorAll('table[data-test=channels] tbody tr')];"
        "if (!rows.length || !rows.every((r) => r.textContent.includes(arguments[0]))) return false;"
        "const row = rows.find((r) => r.cells[0].textContent === arguments[0]);"
        "if (row) row.click();"
        "return !!row;", names["channel"]))
    text_in(wait, "[data-test=inspector]", names["alice"])
    driver.find_element(By.CSS_SELECTOR, "[data-filter]").clear()
    driver.find_element(By.CSS_SELECTOR, "[data-filter]").send_keys("chat")
    wait.until(lambda d: "chat.lobby" in d.find_element(By.CSS_SELECTOR, "table[data-test=channels]").text)
    shoot("channels")


def test_overview_screenshots(driver, wait, shoot):
    keys(driver, "1")
    on_view(wait, "overview")
    text_in(wait, "#view", "chat.lobby")
    if os.environ.get("PUBNODE_SCREENSHOTS") == "1":
        # A chart worth showing: about 45 s of 1.5 s samples.
        WebDriverWait(driver, 90).until(
            lambda d: int(d.find_element(By.CSS_SELECTOR, "#view canvas").get_attribute("data-samples") or 0) >= 30)
    shoot("overview")
    # `t` switches to the other theme and back (the browser starts in the light one).
    dark = os.environ.get("BROWSER_COLOR_SCHEME") == "dark"
    keys(driver, "t")
    wait.until(lambda d: d.execute_script("return document.documentElement.dataset.theme") == ("light" if dark else "dark"))
    shoot("overview-light" if dark else "overview-dark")
    keys(driver, "t")
    wait.until(lambda d: d.execute_script("return document.documentElement.dataset.theme") == ("dark" if dark else "light"))


def test_sign_out_returns_to_login(driver, wait, shoot):
    driver.find_element(By.ID, "logout").click()
    visible(wait, "#login-token")
    shoot("login")


def test_signature_fallback_matches_webcrypto(driver, wait, base_url):
    """Over plain HTTP to a remote host there is no WebCrypto; the JavaScript HMAC must agree with it."""
    driver.get(base_url + "/console")
    result = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import("/console/sign.js").then(async ({ hmacSHA256, hmacFallback }) => {
          const enc = new TextEncoder();
          const cases = [["secret", ""], ["k", "POST\\npub\\n/v3/pam/sub/grant\\ntimestamp=1&uuid=u\\n{}"],
                         ["x".repeat(100), "é€😀".repeat(40)], ["key", "a".repeat(64)], ["key", "b".repeat(55)]];
          const hex = (b) => [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
          const out = [];
          for (const [key, message] of cases) {
            out.push([hex(await hmacSHA256(key, message)), hex(hmacFallback(enc.encode(key), enc.encode(message)))]);
          }
          done(out);
        }, (error) => done(String(error)));
    """)
    assert isinstance(result, list), result
    for webcrypto, fallback in result:
        assert webcrypto == fallback
