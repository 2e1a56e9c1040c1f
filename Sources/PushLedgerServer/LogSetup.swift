import Foundation
import Logging
import PushCore
import Synchronization

/// How every `pushledger` process logs: swift-log bootstrapped once at start from `LOG_LEVEL` (trace … critical,
/// default info) and `LOG_FORMAT` (`text`: swift-log's StreamLogHandler; `json`: one object per line). Logs
/// always go to stderr, so stdout stays for the lines scripts parse (`{"listening":…}`, reports, JSON results).
public enum LogSetup {
    public enum Format: String, Sendable, CaseIterable {
        case text, json
    }

    /// The level and format of every logger in the process.
    public struct Settings: Sendable, Equatable {
        public var level: Logger.Level
        public var format: Format

        public init(level: Logger.Level = .info, format: Format = .text) {
            self.level = level
            self.format = format
        }

        /// From `LOG_LEVEL` and `LOG_FORMAT`; unset or empty means the default, anything else unknown is an error
        /// naming the variable (values are case-insensitive).
        public init(environment: [String: String]) throws(InvalidVariable) {
            self.init()
            if let text = Self.value("LOG_LEVEL", in: environment) {
                guard let level = Logger.Level(rawValue: text.lowercased()) else {
                    throw InvalidVariable(
                        name: "LOG_LEVEL", value: text, expected: Logger.Level.allCases.map(\.rawValue))
                }
                self.level = level
            }
            if let text = Self.value("LOG_FORMAT", in: environment) {
                guard let format = Format(rawValue: text.lowercased()) else {
                    throw InvalidVariable(name: "LOG_FORMAT", value: text, expected: Format.allCases.map(\.rawValue))
                }
                self.format = format
            }
        }

        private static func value(_ name: String, in environment: [String: String]) -> String? {
            guard let raw = environment[name]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
            return raw
        }
    }

    /// An environment variable set to a value logging cannot take.
    public struct InvalidVariable: Error, Sendable, CustomStringConvertible {
        public let name: String
        public let value: String
        public let expected: [String]

        public var description: String {
            "\(name) must be one of \(expected.joined(separator: ", ")), not \"\(value)\""
        }
    }

    private static let bootstrapped = Mutex<Settings?>(nil)

    /// What `bootstrap` installed; nil before it ran (swift-log's default handler is then in use).
    public static var active: Settings? { bootstrapped.withLock { $0 } }

    /// Installs the handlers for the whole process. swift-log allows this once; a second call is a programming
    /// error and traps.
    public static func bootstrap(_ settings: Settings, metadataProvider: Logger.MetadataProvider? = nil) {
        let first = bootstrapped.withLock { current in
            defer { current = settings }
            return current == nil
        }
        precondition(first, "LogSetup.bootstrap runs once per process")
        let sink = LogLineSink.standardError
        LoggingSystem.bootstrap(
            { label, provider in
                switch settings.format {
                case .text:
                    var handler = StreamLogHandler.standardError(label: label, metadataProvider: provider)
                    handler.logLevel = settings.level
                    return handler
                case .json:
                    var handler = JSONLogHandler(label: label, sink: sink, metadataProvider: provider)
                    handler.logLevel = settings.level
                    return handler
                }
            }, metadataProvider: metadataProvider)
    }
}

/// `LOG_FORMAT=json`: one JSON object per line with `ts` (ISO 8601 UTC, milliseconds), `level`, `label`,
/// `message`, then every metadata key at the top level. Values are strings; a nested dictionary or array is
/// JSON-encoded into its string, so every field has one type for log shippers. A metadata key that would
/// overwrite one of the four fixed keys is written as `metadata.<key>`.
struct JSONLogHandler: LogHandler {
    static let fixedKeys: Set<String> = ["ts", "level", "label", "message"]

    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    let label: String
    let sink: LogLineSink

    init(label: String, sink: LogLineSink, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.sink = sink
        self.metadataProvider = metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty {
            merged.merge(provided) { _, new in new }
        }
        if let explicit = event.metadata, !explicit.isEmpty {
            merged.merge(explicit) { _, new in new }
        }
        if let error = event.error {
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        sink.write(
            Self.line(
                at: Date(), level: event.level, label: label, message: event.message.description, metadata: merged))
    }

    /// The newline-terminated line for one event: `ts`, `level`, `label`, `message` and the metadata, each a
    /// string (nested metadata as JSON text), encoded by the same JSON writer as the API's responses.
    static func line(
        at date: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata
    )
        -> String
    {
        var object: [String: JSON] = [:]
        for (key, value) in metadata {
            object[fixedKeys.contains(key) ? "metadata." + key : key] = .string(flattened(value))
        }
        object["ts"] = .string(LeanDate.format(date))
        object["level"] = .string(level.rawValue)
        object["label"] = .string(label)
        object["message"] = .string(message)
        return JSON.object(object).encoded() + "\n"
    }

    static func flattened(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .dictionary, .array: json(value).encoded()
        }
    }

    static func json(_ value: Logger.MetadataValue) -> JSON {
        switch value {
        case .string, .stringConvertible: .string(flattened(value))
        case .dictionary(let dictionary): .object(dictionary.mapValues(json))
        case .array(let array): .array(array.map(json))
        }
    }
}

/// Where JSON log lines go: one `write(2)` per line under a lock, so lines from concurrent tasks never interleave
/// (a pipe keeps writes up to PIPE_BUF whole even between processes).
final class LogLineSink: Sendable {
    static let standardError = LogLineSink(fileDescriptor: 2)

    private let fileDescriptor: Int32
    private let lock = Mutex<Void>(())

    init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    func write(_ line: String) {
        var bytes = Array(line.utf8)
        lock.withLock { _ in
            bytes.withUnsafeMutableBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    guard let base = buffer.baseAddress else { return }
                    let written = Foundation.write(fileDescriptor, base + offset, buffer.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0 && errno == EINTR {
                        continue
                    } else {
                        return  // stderr closed or full: logging must never take the process down
                    }
                }
            }
        }
    }
}
