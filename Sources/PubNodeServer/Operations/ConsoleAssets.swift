import Foundation
import NIOCore

/// The web console's files, read once at start-up and served from memory at `/console`.
public struct ConsoleAssets: Sendable {
    /// One file: its bytes and media type.
    public struct Asset: Sendable {
        /// The file's contents.
        public var body: ByteBuffer
        /// Its media type.
        public var contentType: String

        /// A file with its media type.
        public init(body: ByteBuffer, contentType: String) {
            self.body = body
            self.contentType = contentType
        }
    }

    /// Files by name (`index.html`, `app.js`, ...); the console's folder is flat.
    public let files: [String: Asset]

    /// The console made of `files`.
    public init(files: [String: Asset]) {
        self.files = files
    }

    /// The files of `directory` (not its subfolders), or nil when it holds no `index.html`.
    public static func load(directory: String) -> ConsoleAssets? {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory), names.contains("index.html") else { return nil }
        var files: [String: Asset] = [:]
        for name in names where !name.hasPrefix(".") {
            guard let type = contentType(of: name), let data = manager.contents(atPath: directory + "/" + name) else { continue }
            files[name] = Asset(body: ByteBuffer(bytes: data), contentType: type)
        }
        return ConsoleAssets(files: files)
    }

    /// The console shipped with the node: `PUBNODE_CONSOLE_DIR` when set, else the package's
    /// resource folder next to the executable (where `swift build` and the Docker image put it).
    public static func installed() -> ConsoleAssets? {
        if let directory = ProcessInfo.processInfo.environment["PUBNODE_CONSOLE_DIR"] { return load(directory: directory) }
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        var candidates = [executable.deletingLastPathComponent()]
        if let bundle = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent() {
            candidates.append(bundle)
        }
        for folder in candidates {
            let directory = folder.appendingPathComponent("PubNode_PubNodeServer.resources/Console").path
            if let assets = load(directory: directory) { return assets }
        }
        return nil
    }

    /// The media type served for a file name, nil for anything the console does not ship.
    static func contentType(of name: String) -> String? {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "ico": "image/x-icon"
        case "json": "application/json"
        default: nil
        }
    }
}
