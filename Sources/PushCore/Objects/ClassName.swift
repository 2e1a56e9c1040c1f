/// LeanCloud class names (SPEC §12): a letter, then up to 127 letters, digits or underscores; of the
/// reserved `_` names only `_User` (stored as an object class) and `_Installation` (its own tables) exist.
public enum ClassName {
    public static let user = "_User"
    public static let installation = "_Installation"

    /// Classes only the master key may read, directly or through a sub-query: without ACLs a user's row would
    /// otherwise be open to every holder of the app key.
    public static let masterOnly: Set<String> = [user]

    /// Whether `name` names a class objects may be stored in (or a Pointer may point at).
    public static func isValid(_ name: String) -> Bool {
        if name == user || name == installation { return true }
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 128, isLetter(first) else { return false }
        return bytes.allSatisfy { isLetter($0) || (48...57).contains($0) || $0 == UInt8(ascii: "_") }
    }

    /// A class that `/1.1/classes/:className` stores in `objects` (every valid name but `_Installation`).
    public static func requireObjectClass(_ name: String) throws(LeanError) -> String {
        guard isValid(name), name != installation else { throw .invalidClassName(name) }
        return name
    }

    private static func isLetter(_ b: UInt8) -> Bool { (65...90).contains(b) || (97...122).contains(b) }
}
