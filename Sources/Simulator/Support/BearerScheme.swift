/// Recognises `authorization: Bearer <credentials>` (scheme in any case) without allocating, as it runs per push.
enum BearerScheme {
    static func matches(_ header: String) -> Bool {
        var bytes = header.utf8.makeIterator()
        for expected in "bearer ".utf8 {
            // Folding with 0x20 lower-cases ASCII letters; the space must match exactly.
            guard let byte = bytes.next(), byte | (expected == 0x20 ? 0 : 0x20) == expected else { return false }
        }
        return bytes.next() != nil
    }
}
