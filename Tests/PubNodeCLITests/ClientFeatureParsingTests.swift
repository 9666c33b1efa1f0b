import ArgumentParser
import PubNodeClient
import XCTest
@testable import PubNodeCLI

/// Parsing of the encryption, filter, actions and objects options.
final class ClientFeatureParsingTests: XCTestCase {
    func testCipherKeyOnPublishSubscribeAndHistory() throws {
        let publish = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(["publish", "c", "hi", "--cipher-key", "k"]) as? PublishCommand)
        XCTAssertEqual(try publish.crypto.module(environment: [:]), .aesCbcCryptoModule(with: "k"))
        let legacy = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(
            ["publish", "c", "hi", "--cipher-key", "k", "--legacy-crypto", "--static-iv"]) as? PublishCommand)
        XCTAssertEqual(try legacy.crypto.module(environment: [:]), .legacyCryptoModule(with: "k", withRandomIV: false))
        let history = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(["history", "c", "--cipher-key", "k"]) as? HistoryFetchCommand)
        XCTAssertEqual(try history.crypto.module(environment: [:]), .aesCbcCryptoModule(with: "k"))
        let subscribe = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(
            ["subscribe", "c", "--cipher-key", "k", "--filter", "meta.lang == 'en'"]) as? SubscribeCommand)
        XCTAssertEqual(try subscribe.crypto.module(environment: [:]), .aesCbcCryptoModule(with: "k"))
        XCTAssertEqual(subscribe.filter, "meta.lang == 'en'")
    }

    func testCipherKeyFromTheEnvironmentAndRefusals() throws {
        let plain = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(["history", "c"]) as? HistoryFetchCommand)
        XCTAssertNil(try plain.crypto.module(environment: [:]))
        XCTAssertEqual(try plain.crypto.module(environment: ["PUBNODE_CIPHER_KEY": "env"]), .aesCbcCryptoModule(with: "env"))
        let orphan = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(["history", "c", "--legacy-crypto"]) as? HistoryFetchCommand)
        XCTAssertThrowsError(try orphan.crypto.module(environment: [:]))
        let empty = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(["history", "c", "--cipher-key", ""]) as? HistoryFetchCommand)
        XCTAssertThrowsError(try empty.crypto.module(environment: [:]))
        XCTAssertThrowsError(try PubNodeCLICommand.parseAsRoot(["subscribe", "c", "--filter", ""]))
        XCTAssertThrowsError(try PubNodeCLICommand.parseAsRoot(["signal", "c", "x", "--cipher-key", "k"]),
                             "signals are never encrypted")
    }

    func testActionsCommands() throws {
        let add = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(
            ["actions", "add", "chat", "17000000000000001", "reaction", "smiley"]) as? ActionsAddCommand)
        XCTAssertEqual(add.channel, "chat")
        XCTAssertEqual(add.messageTimetoken, 17_000_000_000_000_001)
        XCTAssertEqual(add.type, "reaction")
        XCTAssertEqual(add.value, "smiley")
        let remove = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(["actions", "remove", "chat", "1", "2"]) as? ActionsRemoveCommand)
        XCTAssertEqual(remove.actionTimetoken, 2)
        let list = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(
            ["actions", "list", "chat", "--start", "9", "--end", "3", "--limit", "4"]) as? ActionsListCommand)
        XCTAssertEqual([list.start, list.end], [9, 3])
        XCTAssertEqual(list.limit, 4)
        XCTAssertThrowsError(try PubNodeCLICommand.parseAsRoot(["actions", "list", "chat", "--limit", "0"]))
        XCTAssertThrowsError(try PubNodeCLICommand.parseAsRoot(["actions", "add", "chat", "notatimetoken", "t", "v"]))
    }

    func testObjectsMetadataCommands() throws {
        let set = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(
            ["objects", "uuid", "set", "alice", "--name", "Alice", "--email", "a@x", "--custom", "{\"age\":7}",
             "--if-match", "E1"]) as? ObjectsUUIDCommand.Set)
        XCTAssertEqual(set.id, "alice")
        XCTAssertEqual(set.name, "Alice")
        XCTAssertEqual(set.ifMatch, "E1")
        XCTAssertEqual(try ObjectsPrinter.custom(set.custom), ["age": 7])
        XCTAssertThrowsError(try ObjectsPrinter.custom("[1]"), "custom must be an object")
        let get = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(["objects", "uuid", "get"]) as? ObjectsUUIDCommand.Get)
        XCTAssertNil(get.id)
        let channel = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(
            ["objects", "channel", "set", "room", "--description", "d"]) as? ObjectsChannelCommand.Set)
        XCTAssertEqual(channel.description, "d")
        let list = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(
            ["objects", "channel", "list", "--limit", "5", "--sort", "name", "--sort", "updated:desc", "--count",
             "--filter", "name LIKE 'a*'", "--next", "Mg"]) as? ObjectsChannelCommand.List)
        XCTAssertEqual(try list.list.options(), ObjectsListOptions(
            include: [.custom, .status, .type, .totalCount], filter: "name LIKE 'a*'", sort: ["name", "updated:desc"],
            limit: 5, page: .next("Mg")))
        XCTAssertThrowsError(try PubNodeCLICommand.parseAsRoot(["objects", "uuid", "list", "--next", "a", "--prev", "b"]))
        XCTAssertThrowsError(try PubNodeCLICommand.parseAsRoot(["objects", "uuid", "list", "--include", "bogus"]))
    }

    func testObjectsMembershipCommands() throws {
        let set = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(
            ["objects", "memberships", "set", "alice", "chat", "news", "--custom", "{\"role\":\"mod\"}"])
            as? ObjectsMembershipsCommand.Set)
        XCTAssertEqual(set.uuid, "alice")
        XCTAssertEqual(set.channels, ["chat", "news"])
        let list = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(
            ["objects", "members", "list", "chat", "--include", "uuid", "--include", "uuid.custom"]) as? ObjectsMembersCommand.List)
        XCTAssertEqual(list.channel, "chat")
        XCTAssertEqual(try list.list.includes(), [.custom, .status, .type, .uuid, .uuidCustom])
        XCTAssertThrowsError(try PubNodeCLICommand.parseAsRoot(["objects", "members", "remove", "chat"]))
        XCTAssertThrowsError(try PubNodeCLICommand.parseAsRoot(["objects", "memberships", "set", "alice"]))
    }

    func testEventLines() {
        let action = MessageAction(channel: "c", type: "reaction", value: "smiley", uuid: "u", actionTimetoken: 2, messageTimetoken: 1)
        XCTAssertEqual(EventOutput.line(.messageActionAdded(action), json: false),
                       "action-added actionTimetoken=2 actionType=reaction channel=c messageTimetoken=1 uuid=u value=smiley")
        let json = EventOutput.line(.uuidMetadataRemoved(metadataId: "u1"), json: true)
        XCTAssertEqual(json, #"{"id":"u1","type":"uuid-removed"}"#)
        XCTAssertNil(EventOutput.line(.message(ReceivedMessage(channel: "c", payload: 1, timetoken: 1)), json: true))
    }
}
