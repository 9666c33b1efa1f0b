// swift-tools-version:5.4
// Coverage-guided fuzz targets (libFuzzer) for the parsers that read untrusted bytes.
// Built with sanitizers by Scripts/fuzz.sh; see Docs/fuzzing.md.
//
// Tools version 5.4 on purpose: from 5.5 SwiftPM renames each executable's entry point to
// `<Module>_main` and links `main` to it on Linux, which clashes with libFuzzer's own `main`.
import PackageDescription

/// One libFuzzer executable per parser; each defines `LLVMFuzzerTestOneInput`.
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport"] + dependencies,
        swiftSettings: [.unsafeFlags(["-parse-as-library"])]
    )
}

let core: Target.Dependency = .product(name: "PubNodeCore", package: "PubNode")
let server: Target.Dependency = .product(name: "PubNodeServer", package: "PubNode")
let wire: Target.Dependency = .product(name: "PubNodeAccessWire", package: "PubNode")
let redis: Target.Dependency = .product(name: "PubNodeRedis", package: "PubNode")

let package = Package(
    name: "PubNodeFuzz",
    dependencies: [
        .package(name: "PubNode", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .target(name: "FuzzSupport"),
        fuzzTarget("FuzzRequestTarget", [server, core, .product(name: "NIOHTTP1", package: "swift-nio")]),
        fuzzTarget("FuzzSignature", [wire]),
        fuzzTarget("FuzzJSON", [core]),
        fuzzTarget("FuzzPresenceState", [core]),
        fuzzTarget("FuzzKeysetSpec", [core]),
        fuzzTarget("FuzzHookReply", [core]),
        fuzzTarget("FuzzCBOR", [wire, core]),
        fuzzTarget("FuzzCBORJSON", [wire, core]),
        fuzzTarget("FuzzToken", [wire]),
        fuzzTarget("FuzzPattern", [wire]),
        fuzzTarget("FuzzRESP", [redis, .product(name: "NIOCore", package: "swift-nio")]),
        fuzzTarget("FuzzClusterRecord", [redis, .product(name: "NIOCore", package: "swift-nio")]),
        fuzzTarget("FuzzFilter", [core]),
        fuzzTarget("FuzzHTTPRequest", [server, .product(name: "NIOCore", package: "swift-nio"),
                                        .product(name: "NIOEmbedded", package: "swift-nio"),
                                        .product(name: "NIOHTTP1", package: "swift-nio")]),
    ]
)
