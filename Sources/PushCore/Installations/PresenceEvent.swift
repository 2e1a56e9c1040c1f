/// Event types of a presence stream (`presence:<objectId>`): a device's own-channel connections (SPEC §12.2).
/// They live beside the installation's stream rather than in it, so a connection never moves the installation's
/// version or `updatedAt`; `explain` shows both streams as one history.
public enum PresenceEvent {
    /// `{"objectId","installationId","session","at"}`
    public static let connected = "DeviceConnected"
    /// `{"objectId","installationId","session","at","reason"}`
    public static let disconnected = "DeviceDisconnected"

    public static func stream(_ objectId: String) -> String { "presence:\(objectId)" }
}
