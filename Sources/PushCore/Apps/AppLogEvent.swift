/// An app stream's event: its kind and the payload of that kind, the stored type derived from the case.
public enum AppLogEvent: Sendable, Equatable {
    case created(AppCreated)
    case settingsChanged(AppSettingsChanged)

    /// The type the log stores it under (`AppEvent`'s names).
    public var type: String {
        switch self {
        case .created: AppEvent.created
        case .settingsChanged: AppEvent.settingsChanged
        }
    }

    /// The stored data.
    public var json: JSON {
        switch self {
        case .created(let p): p.json
        case .settingsChanged(let p): p.json
        }
    }

    /// Reads a stored event of the app stream; nil for a type that is not an app event.
    public init?(type: String, json: JSON) throws {
        let read = EventFields(json, event: type)
        switch type {
        case AppEvent.created: self = .created(try AppCreated(read))
        case AppEvent.settingsChanged: self = .settingsChanged(AppSettingsChanged(read))
        default: return nil
        }
    }
}

/// `AppCreated`: the app's name, keys and first settings.
public struct AppCreated: Sendable, Equatable {
    public var name: String
    public var appKey: String
    public var masterKey: String
    public var settings: [String: JSON]
    public var createdAt: String

    public init(name: String, appKey: String, masterKey: String, settings: [String: JSON], createdAt: String) {
        self.name = name
        self.appKey = appKey
        self.masterKey = masterKey
        self.settings = settings
        self.createdAt = createdAt
    }

    init(_ read: EventFields) throws {
        name = try read.string("name")
        appKey = try read.string("appKey")
        masterKey = try read.string("masterKey")
        settings = read.object("settings") ?? [:]
        createdAt = try read.string("createdAt")
    }

    public var json: JSON {
        [
            "name": .string(name), "appKey": .string(appKey), "masterKey": .string(masterKey),
            "settings": .object(settings), "createdAt": .string(createdAt),
        ]
    }
}

/// `AppSettingsChanged`: settings set (their parsed values) and removed. It carries no time: the event's
/// `recorded_at` is when it happened.
public struct AppSettingsChanged: Sendable, Equatable {
    public var set: [String: JSON]
    public var unset: [String]

    public init(set: [String: JSON], unset: [String]) {
        self.set = set
        self.unset = unset
    }

    init(_ read: EventFields) {
        set = read.object("set") ?? [:]
        unset = read.strings("unset")
    }

    public var json: JSON { ["set": .object(set), "unset": .array(unset.map(JSON.string))] }
}
