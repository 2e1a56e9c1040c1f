// swift-tools-version:6.1
import PackageDescription

// Dependencies point inward: PushCore depends on nothing of ours; the C libraries are reached only
// through the Postgres, Curl and NGHTTP2 wrappers.
let package = Package(
    name: "pushledger",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pushledger", targets: ["pushledger"])
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-extras/swift-extras-base64.git", from: "1.2.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),
    ],
    targets: [
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "CThreadName"),
        .target(
            name: "Postgres",
            dependencies: [
                "CLibPQ", "CThreadName", .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "Curl",
            dependencies: [
                "CCurl", "CThreadName", .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The HTTP/2 client's event loop in C on libnghttp2 and OpenSSL (libnghttp2-dev, libssl-dev): one thread
        // per loop owns its sockets, SSL objects and sessions; the NGHTTP2 module is its only user.
        .target(
            name: "CNGHTTP2Loop",
            cSettings: [.define("_GNU_SOURCE")],
            linkerSettings: [
                .linkedLibrary("nghttp2"), .linkedLibrary("ssl"), .linkedLibrary("crypto"),
                .linkedLibrary("pthread"),
            ]
        ),
        .target(
            name: "NGHTTP2",
            dependencies: [
                "CNGHTTP2Loop", .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .target(name: "PushCore"),
        .target(
            name: "Ledger",
            dependencies: [
                "Postgres", "PushCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Migrations")]
        ),
        .target(
            name: "Delivery",
            dependencies: [
                "Curl", "NGHTTP2", "Ledger", "PushCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "Reports",
            dependencies: ["Ledger", "Postgres", "PushCore"],
            resources: [.copy("Definitions")]
        ),
        // What every HTTP route stands on, the API's and the console's: the request context, LeanCloud error
        // responses (the one table of statuses, which the channel's close codes use too), the request log.
        .target(
            name: "HTTPEdge",
            dependencies: [
                "Ledger", "Postgres", "PushCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The own device channel (SPEC §12.2): WebSocket sessions, acks, presence; durable state lives in Ledger.
        .target(
            name: "DeviceChannel",
            dependencies: [
                "HTTPEdge", "Ledger", "Postgres", "PushCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]
        ),
        .target(
            name: "API",
            dependencies: [
                "DeviceChannel", "HTTPEdge", "Ledger", "Postgres", "PushCore", "Reports",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                // scrypt for users' passwords (SPEC §12.5), hashed on NIO's blocking-work pool.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The web console at /console (SPEC "Console at /console"): server-rendered HTML over the same services as the API.
        .target(
            name: "Console",
            dependencies: [
                "DeviceChannel", "HTTPEdge", "Ledger", "Postgres", "PushCore", "Reports",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Templates"), .copy("Static")]
        ),
        .target(
            name: "Simulator",
            dependencies: [
                "PushCore",
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "PushLedgerServer",
            dependencies: [
                "API", "Console", "Delivery", "DeviceChannel", "HTTPEdge", "Ledger", "PushCore", "Postgres", "Reports",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "pushledger",
            dependencies: [
                "PushLedgerServer", "Simulator", "Ledger", "PushCore", "Postgres", "Reports", "Curl", "Delivery",
                "DeviceChannel",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // jemalloc instead of glibc's malloc: a fan-out allocates on the sender tasks and frees on the curl
            // driver threads, which glibc's per-thread caches serve badly (docs/decisions.md, "The binary
            // allocates with jemalloc").
            linkerSettings: [.linkedLibrary("jemalloc", .when(platforms: [.linux]))]
        ),
        // scripts/bench-json: PushCore's JSON reader against Foundation's (not part of the product).
        .executableTarget(name: "json-reader-bench", dependencies: ["PushCore"], path: "Benchmarks/JSONReaderBench"),
        .target(
            name: "TestSupport",
            dependencies: ["Postgres", "Ledger", "PushCore"],
            path: "Tests/TestSupport"
        ),
        .testTarget(name: "PushCoreTests", dependencies: ["PushCore", "TestEnvironment"]),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "TestEnvironment"]),
        .testTarget(
            name: "LedgerTests",
            dependencies: [
                "Ledger", "Postgres", "PushCore", "TestSupport", "TestEnvironment", "HTTP2TestSupport",
            ]),
        .testTarget(
            name: "ReportsTests",
            dependencies: ["Reports", "Ledger", "Postgres", "PushCore", "TestSupport", "TestEnvironment"]),
        .target(name: "HTTP2TestSupport", path: "Tests/HTTP2TestSupport"),
        // The trait that fails, rather than skips, a database suite run without the test cluster, and the clock
        // tests move instead of sleeping.
        .target(name: "TestEnvironment", dependencies: ["PushCore"], path: "Tests/TestEnvironment"),
        .testTarget(
            name: "CurlTests",
            dependencies: [
                "Curl", "CCurl", "HTTP2TestSupport", .product(name: "HTTPTypes", package: "swift-http-types"),
            ]),
        .testTarget(
            name: "NGHTTP2Tests",
            dependencies: ["NGHTTP2", "HTTP2TestSupport", .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        .testTarget(
            name: "DeliveryTests",
            dependencies: [
                "Delivery", "Curl", "NGHTTP2", "PushCore", "HTTP2TestSupport", "TestEnvironment", "Ledger", "Postgres",
                "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "SimulatorTests",
            dependencies: [
                "Simulator",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "EndToEndTests", dependencies: ["PushCore", "TestSupport", "TestEnvironment"]),
        .testTarget(name: "ConsoleTests", dependencies: ["Console", "HTTPEdge", "PushCore"]),
        .testTarget(name: "APITests", dependencies: ["API", "HTTPEdge", "PushCore"]),
        .testTarget(
            name: "DeviceChannelTests",
            dependencies: ["DeviceChannel", "Ledger", "PushCore", "TestSupport", "TestEnvironment"]),
    ]
)
