// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "PubNode",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pubnode", targets: ["pubnode"]),
        .executable(name: "pubnode-load", targets: ["pubnode-load"]),
        .executable(name: "pubnode-cli", targets: ["pubnode-cli"]),
        .library(name: "PubNodeCore", targets: ["PubNodeCore"]),
        .library(name: "PubNodeServer", targets: ["PubNodeServer"]),
        .library(name: "PubNodeHistorySQLite", targets: ["PubNodeHistorySQLite"]),
        .library(name: "PubNodeHistoryPostgres", targets: ["PubNodeHistoryPostgres"]),
        .library(name: "PubNodeClient", targets: ["PubNodeClient"]),
        .library(name: "PubNodeWebhooks", targets: ["PubNodeWebhooks"]),
        .library(name: "PubNodeRedis", targets: ["PubNodeRedis"]),
        // For the fuzz package (Fuzz/), which exercises the wire parsers directly.
        .library(name: "PubNodeAccessWire", targets: ["PubNodeAccessWire"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        .target(
            name: "PubNodeCore",
            dependencies: [
                "PubNodeAccessWire",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "PubNodeWebhooks",
            dependencies: [
                "PubNodeCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "PubNodeServer",
            dependencies: [
                "PubNodeCore",
                "PubNodeAccessWire",
                "CZlib",
                "CPubNodePrefetch",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // The web console: plain HTML, CSS and JavaScript served at /console.
            resources: [.copy("Console")]
        ),
        // Redis for cluster mode: a RESP2 codec and connections on SwiftNIO.
        .target(
            name: "PubNodeRedis",
            dependencies: [
                "PubNodeCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "PubNodeHistorySQLite",
            dependencies: [
                "PubNodeCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // History in PostgreSQL, shared by the nodes of a cluster.
        .target(
            name: "PubNodeHistoryPostgres",
            dependencies: [
                "PubNodeCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "pubnode",
            dependencies: [
                "PubNodeServer",
                "PubNodeCore",
                "PubNodeRedis",
                "PubNodeHistorySQLite",
                "PubNodeHistoryPostgres",
                "PubNodeWebhooks",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "pubnode-hooks-example",
            dependencies: ["PubNodeServer", "PubNodeCore", .product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(
            name: "pubnode-load",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // A cache-prefetch hint for the fan-out's hot loops (Docs/performance.md, twenty-eighth series).
        .target(name: "CPubNodePrefetch"),
        .target(
            name: "PubNodeClient",
            dependencies: [
                "CZlib", "PubNodeAccessWire",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // Wire formats of access control shared by the node and the client: CBOR, v3 tokens,
        // request signatures and token resource patterns.
        .target(
            name: "PubNodeAccessWire",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "PubNodeCLI",
            dependencies: [
                "PubNodeClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "pubnode-cli", dependencies: ["PubNodeCLI"]),
        // Shared test fixtures: the manual clock, waiting helpers, the in-process test node.
        .target(
            name: "PubNodeTestSupport",
            dependencies: ["PubNodeCore", "PubNodeServer", "PubNodeClient"],
            path: "Tests/PubNodeTestSupport"
        ),
        .testTarget(name: "PubNodeAccessWireTests", dependencies: ["PubNodeAccessWire"]),
        .testTarget(
            name: "PubNodeLoadTests",
            dependencies: ["pubnode-load", .product(name: "NIOCore", package: "swift-nio")]
        ),
        .testTarget(name: "PubNodeCoreTests", dependencies: ["PubNodeCore", "PubNodeTestSupport"]),
        .testTarget(
            name: "PubNodeWebhooksTests",
            dependencies: [
                "PubNodeWebhooks",
                "PubNodeTestSupport",
                "PubNodeServer",
                "PubNodeCore",
                "PubNodeHistorySQLite",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "PubNodeClientTests",
            dependencies: ["PubNodeClient", "PubNodeAccessWire", "PubNodeServer", "PubNodeCore", "PubNodeTestSupport"]
        ),
        .testTarget(
            name: "PubNodeCLITests",
            dependencies: ["PubNodeCLI", "pubnode-cli", "PubNodeClient", "PubNodeServer", "PubNodeCore", "PubNodeTestSupport"]
        ),
        .testTarget(
            name: "PubNodeHistorySQLiteTests",
            dependencies: [
                "PubNodeHistorySQLite",
                "PubNodeHistoryPostgres",
                "PubNodeTestSupport",
                "PubNodeServer",
                "PubNodeCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "PubNodeHistoryPostgresTests",
            dependencies: [
                "PubNodeHistoryPostgres",
                "PubNodeAccessWire",
                "PubNodeTestSupport",
                "PubNodeServer",
                "PubNodeCore",
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "pubnodeTests",
            dependencies: [
                "pubnode",
                "PubNodeServer",
                "PubNodeCore",
                "PubNodeHistorySQLite",
                "PubNodeHistoryPostgres",
                "PubNodeTestSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "PubNodeRedisTests",
            dependencies: [
                "PubNodeRedis",
                "PubNodeCore",
                "PubNodeTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "PubNodeServerTests",
            dependencies: [
                "PubNodeServer",
                "PubNodeAccessWire",
                "PubNodeTestSupport",
                "PubNodeCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
    ]
)
