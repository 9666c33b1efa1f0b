import ArgumentParser
import Foundation
import PubNodeClient
import XCTest
@testable import PubNodeCLI

/// The access commands: token grant/revoke/parse, keyset admin, and the --auth/--secret-key globals.
final class AccessCommandTests: XCTestCase {
    static let referenceToken = "qEF2AkF0GmEI03xDdHRsGDxDcmVzpURjaGFuoWljaGFubmVsLTEY70NncnChb2NoYW5uZWxfZ3JvdXAtMQVDdXNyoENzcGOgRHV1aWShZnV1aWQtMRhoQ3BhdKVEY2hhbqFtXmNoYW5uZWwtXFMqJBjvQ2dycKF0XjpjaGFubmVsX2dyb3VwLVxTKiQFQ3VzcqBDc3BjoER1dWlkoWpedXVpZC1cUyokGGhEbWV0YaBEdXVpZHR0ZXN0LWF1dGhvcml6ZWQtdXVpZENzaWdYIPpU-vCe9rkpYs87YUrFNWkyNq8CVvmKwEjVinnDrJJc"

    func testGrantFlagsBecomePermissions() throws {
        let command = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(
            ["token", "grant", "--ttl", "60", "--authorized-uuid", "alice", "--channel", "chat=rw", "--channel", "chat=d",
             "--group", "friends=rm", "--user", "bob=gu", "--channel-pattern", "^room-[a=z]+$=r",
             "--meta", #"{"role":"member"}"#, "--secret-key", "sec"]) as? TokenGrantCommand)
        XCTAssertEqual(command.ttl, 60)
        XCTAssertEqual(command.authorizedUUID, "alice")
        XCTAssertEqual(command.global.secretKey, "sec")
        let (resources, patterns) = try command.grants()
        XCTAssertEqual(resources, TokenResources(channels: ["chat": [.read, .write, .delete]],
                                                 groups: ["friends": [.read, .manage]], uuids: ["bob": [.get, .update]]))
        XCTAssertEqual(patterns, TokenResources(channels: ["^room-[a=z]+$": .read]))
        XCTAssertEqual(try command.metaObject(), ["role": "member"])
    }

    func testGrantRefusesBadFlags() {
        for arguments in [
            ["--ttl", "0", "--channel", "a=r"], ["--ttl", "43201", "--channel", "a=r"], ["--ttl", "5"],
            ["--ttl", "5", "--channel", "a=rx"], ["--ttl", "5", "--channel", "a"], ["--ttl", "5", "--channel", "=r"],
            ["--ttl", "5", "--channel", "a=r", "--meta", "[1]"],
        ] {
            XCTAssertThrowsError(try PubNodeCLICommand.parseAsRoot(["token", "grant"] + arguments), "\(arguments)")
        }
    }

    func testAuthAndSecretKeyFromFlagsOrEnvironment() throws {
        let flagged = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(
            PubNodeCLIRunner.movingGlobalOptions(["--secret-key", "s1", "--auth", "t1", "time"])) as? TimeCommand)
        let fromFlags = try flagged.global.configuration(environment: ["PUBNODE_SECRET_KEY": "s2", "PUBNODE_AUTH": "t2"])
        XCTAssertEqual(fromFlags.secretKey, "s1")
        XCTAssertEqual(fromFlags.authToken, "t1")
        let plain = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(["time"]) as? TimeCommand)
        let fromEnvironment = try plain.global.configuration(environment: ["PUBNODE_SECRET_KEY": "s2", "PUBNODE_AUTH": "t2"])
        XCTAssertEqual(fromEnvironment.secretKey, "s2")
        XCTAssertEqual(fromEnvironment.authToken, "t2")
        XCTAssertNil(try plain.global.configuration(environment: [:]).secretKey)
    }

    func testParsePrintsTheTokenAsJSON() throws {
        let json = try JSONValue(jsonData: Data(try TokenParseCommand.render(Self.referenceToken).utf8))
        XCTAssertEqual(json["version"], 2)
        XCTAssertEqual(json["timestamp"], 1_627_968_380)
        XCTAssertEqual(json["ttl"], 60)
        XCTAssertEqual(json["authorizedUUID"], "test-authorized-uuid")
        XCTAssertEqual(json["resources"]?["channels"]?["channel-1"]?["letters"], "rwmdguj")
        XCTAssertEqual(json["resources"]?["groups"]?["channel_group-1"]?["bits"], 5)
        XCTAssertEqual(json["patterns"]?["uuids"]?[#"^uuid-\S*$"#]?["letters"], "dgu")
        XCTAssertEqual(json["meta"], .object([:]))
        XCTAssertThrowsError(try TokenParseCommand.render("nope"))
    }

    func testTokenParseRunsOfflineAndGrantNeedsTheSecretKey() async throws {
        let parsed = try await runCLI(["token", "parse", Self.referenceToken, "--origin", "127.0.0.1:1"])
        XCTAssertEqual(parsed.status, 0, parsed.stderr)
        XCTAssertEqual(try JSONValue(jsonData: Data(parsed.stdout.utf8))["ttl"], 60)
        let garbage = try await runCLI(["token", "parse", "nope"])
        XCTAssertEqual(garbage.status, 2)
        XCTAssertTrue(garbage.stderr.contains("not a valid access token"), garbage.stderr)
        let unsigned = try await runCLI(["token", "grant", "--ttl", "5", "--channel", "a=r", "--origin", "127.0.0.1:1"])
        XCTAssertEqual(unsigned.status, 2)
        XCTAssertTrue(unsigned.stderr.contains("secret key"), unsigned.stderr)
    }

    func testKeysetArgumentsAndAdminToken() throws {
        let create = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(
            ["keyset", "create", "--access-manager", "--publishes-per-second", "5", "--admin-token", "adm"])
            as? KeysetCreateCommand)
        XCTAssertTrue(create.accessManager)
        XCTAssertFalse(create.appContextEvents)
        XCTAssertEqual(create.publishesPerSecond, 5)
        let announcing = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(["keyset", "create", "--app-context-events"])
            as? KeysetCreateCommand)
        XCTAssertTrue(announcing.appContextEvents)
        XCTAssertNil(create.requestsPerSecond)
        XCTAssertEqual(try create.admin.token(environment: ["PUBNODE_ADMIN_TOKEN": "env"]), "adm")
        let rotate = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(["keyset", "rotate", "sub-c-1"]) as? KeysetRotateCommand)
        XCTAssertEqual(rotate.subscribeKey, "sub-c-1")
        XCTAssertEqual(try rotate.admin.token(environment: ["PUBNODE_ADMIN_TOKEN": "env"]), "env")
        XCTAssertThrowsError(try rotate.admin.token(environment: [:]))
        for name in ["list", "disable", "enable", "delete"] {
            let arguments = name == "list" ? ["keyset", name] : ["keyset", name, "sub-c-1"]
            XCTAssertNoThrow(try PubNodeCLICommand.parseAsRoot(arguments), name)
        }
    }

    func testKeysetOutput() throws {
        let keyset = try XCTUnwrap(Keyset(json: try JSONValue(jsonData: Data("""
            {"publishKey":"pub-c-1","subscribeKey":"sub-c-1","secretKey":"sec-c-1","accessManager":true,"disabled":false,
             "origin":"created","rateLimits":{"publishesPerSecond":5},"counters":{"admitted":3,"refused":1}}
            """.utf8))))
        XCTAssertEqual(KeysetOutput.text(keyset), """
            subscribeKey  sub-c-1
            publishKey    pub-c-1
            secretKey     sec-c-1
            accessManager true
            disabled      false
            origin        created
            rateLimits    5 publishes/s
            counters      admitted 3, refused 1
            """)
        XCTAssertEqual(KeysetOutput.line(keyset), "sub-c-1  pub-c-1  access-manager  enabled  created  5 publishes/s")
        XCTAssertEqual(Keyset(json: keyset.json), keyset)
        XCTAssertEqual(CLIError(.accessDenied(AccessDenial(message: "Forbidden", channels: ["a"])), origin: "o").message,
                       "403 Forbidden; channels a")
        XCTAssertEqual(CLIError(.rateLimited(retryAfter: 2, message: "Too many requests."), origin: "o").message,
                       "429 Too many requests. (retry after 2 s)")
    }
}
