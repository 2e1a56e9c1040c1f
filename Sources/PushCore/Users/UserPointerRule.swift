/// Pointers at `_User` in an installation decide whose pushes a device receives ("push to a user", seed 001),
/// so only that user may set them (SPEC §12.5): a save may point a field at a user only with the master key or
/// that user's session, and may change an installation that already points at a user only as that user. A
/// save that changes nothing (the SDKs resend the whole object) is no change, so a device whose user signed
/// out can still re-save itself. Code 119 otherwise.
public enum UserPointerRule {
    public static func check(
        set: [String: JSON], unset: [String], current: [String: JSON], writer: Writer
    ) throws(LeanError) {
        if writer == .master || (set.isEmpty && unset.isEmpty) { return }
        let signedIn = writer.userId
        for key in set.keys.sorted() {
            for target in users(in: set[key]!) where target != signedIn {
                throw .forbidden(
                    "\(key) may point only at the signed-in user: save it with that user's session or the master key.")
            }
        }
        for key in current.keys.sorted() {
            for owner in users(in: current[key]!) where owner != signedIn {
                throw .forbidden(
                    "This installation belongs to a user (\(key)): only that user's session or the master key may "
                        + "change it.")
            }
        }
    }

    /// The objectIds of every `_User` Pointer in `value`, at any depth (arrays of Pointers, `__op` bodies).
    public static func users(in value: JSON) -> [String] {
        switch value {
        case .array(let items):
            return items.flatMap(users(in:))
        case .object(let fields):
            if fields["__type"]?.stringValue == "Pointer", fields["className"]?.stringValue == ClassName.user {
                return [fields["objectId"]?.stringValue ?? ""]
            }
            return fields.keys.sorted().flatMap { users(in: fields[$0]!) }
        default:
            return []
        }
    }
}
