"""Encryption across implementations: the Python SDK's cryptors against pubnode-cli's.

The SDK publishes encrypted messages that `pubnode-cli history --cipher-key` decrypts, and
`pubnode-cli publish --cipher-key` publishes messages that the SDK's subscriber and
`fetch_messages` decrypt. Both cryptors: AES-CBC with the PNED header (ACRH) and the legacy one
(random and static IV).
"""

import base64
import json
import os
import subprocess

import pytest

from pubnub.crypto import AesCbcCryptoModule, LegacyCryptoModule
from pubnub.pnconfiguration import PNConfiguration
from pubnub.pubnub import PubNub

from conftest import WAIT, origin, uniq

KEY = "myCipherKey"
MESSAGES = [{"text": "héllo", "n": [1, 2.5, None]}, "plain string", 42, ["a", {"b": True}]]

# mode: (how the SDK is configured, pubnode-cli flags that encrypt the same way)
MODES = {
    "aes-cbc-module": ("aes", []),
    "legacy-module": ("legacy", ["--legacy-crypto"]),
    "legacy-cipher-key": ("cipher_key", ["--legacy-crypto"]),
    "legacy-static-iv": ("static", ["--legacy-crypto", "--static-iv"]),
}


def cli_binary():
    repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    path = os.environ.get("PUBNODE_CLI_BIN") or os.path.join(repo, ".build", "debug", "pubnode-cli")
    assert os.access(path, os.X_OK), "pubnode-cli not built at %s (swift build, or set PUBNODE_CLI_BIN)" % path
    return path


def cli(*args):
    result = subprocess.run([cli_binary(), *args, "--origin", origin()], capture_output=True, text=True,
                            timeout=WAIT * 2)
    assert result.returncode == 0, result.stderr
    return result


def encrypting_client(node, mode):
    # The configuration locks when the client is made, so the cryptor is set on a fresh copy.
    template = node.client("crypto").config
    config = PNConfiguration()
    for name in ("publish_key", "subscribe_key", "ssl", "origin", "user_id", "daemon", "reconnect_policy",
                 "non_subscribe_request_timeout", "connect_timeout"):
        setattr(config, name, getattr(template, name))
    config.cipher_key = KEY
    kind = MODES[mode][0]
    if kind == "static":
        config.use_random_initialization_vector = False
    if kind == "aes":
        config.crypto_module = AesCbcCryptoModule(config)
    elif kind in ("legacy", "static"):
        config.crypto_module = LegacyCryptoModule(config)
    pn = PubNub(config)
    node._clients.append(pn)
    return pn


def decoded(payload):
    return base64.b64decode(payload)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_sdk_encrypts_and_cli_history_decrypts(node, mode):
    channel = uniq("crypt")
    pn = encrypting_client(node, mode)
    for message in MESSAGES:
        pn.publish().channel(channel).message(message).sync()
    # What the node stores is the SDK's base64 string.
    plain = node.client("reader")
    stored = plain.fetch_messages().channels(channel).sync().result.channels[channel]
    assert all(isinstance(item.message, str) for item in stored)
    headers = [decoded(item.message)[:4] == b"PNED" for item in stored]
    assert headers == [mode == "aes-cbc-module"] * len(MESSAGES)

    flags = ["--static-iv"] if mode == "legacy-static-iv" else []
    lines = cli("history", channel, "--cipher-key", KEY, "--json", *flags).stdout.splitlines()
    assert [json.loads(line)["message"] for line in lines] == MESSAGES
    assert not any("decryptionError" in json.loads(line) for line in lines)

    wrong = cli("history", channel, "--cipher-key", "another key", "--json", *flags).stdout.splitlines()
    items = [json.loads(line) for line in wrong]
    assert [item["message"] for item in items] == [item.message for item in stored], "undecryptable: as stored"
    assert all("decryptionError" in item for item in items)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_cli_encrypts_and_sdk_decrypts(node, mode):
    channel = uniq("crypt")
    pn = encrypting_client(node, mode)
    listener = node.subscribe(pn, channels=[channel])
    for message in MESSAGES:
        cli("publish", channel, json.dumps(message), "--cipher-key", KEY, *MODES[mode][1])
    received = listener.take_messages(len(MESSAGES))
    assert [m.message for m in received] == MESSAGES
    assert all(m.error is None for m in received)

    stored = node.client("reader").fetch_messages().channels(channel).sync().result.channels[channel]
    assert [decoded(item.message)[:4] == b"PNED" for item in stored] == [mode == "aes-cbc-module"] * len(MESSAGES)
    if mode != "legacy-cipher-key":
        # fetch_messages decrypts through a crypto module only.
        fetched = pn.fetch_messages().channels(channel).decrypt_messages().sync().result.channels[channel]
        assert [item.message for item in fetched] == MESSAGES
