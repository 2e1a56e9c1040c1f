/// An ordered list of HTTP header fields. Lookups ignore case; response headers arrive with lower-cased names,
/// as HTTP/2 sends them.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Element = (name: String, value: String)

    private var names: [String] = []
    private var values: [String] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, String)...) {
        names.reserveCapacity(elements.count)
        values.reserveCapacity(elements.count)
        for (name, value) in elements { add(name: name, value: value) }
    }

    public init(_ fields: [(String, String)]) {
        for (name, value) in fields { add(name: name, value: value) }
    }

    public var count: Int { names.count }
    public var isEmpty: Bool { names.isEmpty }

    public mutating func reserveCapacity(_ capacity: Int) {
        names.reserveCapacity(capacity)
        values.reserveCapacity(capacity)
    }

    /// Appends a field, keeping any earlier field of the same name (repeated fields are legal in HTTP).
    public mutating func add(name: String, value: String) {
        names.append(name)
        values.append(value)
    }

    /// Replaces every field of this name by a single one.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    public mutating func remove(name: String) {
        var index = names.count - 1
        while index >= 0 {
            if Self.equalIgnoringCase(names[index], name) {
                names.remove(at: index)
                values.remove(at: index)
            }
            index -= 1
        }
    }

    /// The first value of the named field.
    public subscript(name: String) -> String? {
        for index in names.indices where Self.equalIgnoringCase(names[index], name) {
            return values[index]
        }
        return nil
    }

    /// Every value of the named field, in order.
    public func values(for name: String) -> [String] {
        names.indices.filter { Self.equalIgnoringCase(names[$0], name) }.map { values[$0] }
    }

    public func makeIterator() -> Iterator {
        Iterator(names: names, values: values)
    }

    /// Walks the fields in order without boxing, since every request's headers are walked once.
    public struct Iterator: IteratorProtocol {
        let names: [String]
        let values: [String]
        var index = 0

        public mutating func next() -> Element? {
            guard index < names.count else { return nil }
            defer { index += 1 }
            return (names[index], values[index])
        }
    }

    /// ASCII-only comparison: header names are tokens, and this runs for every header of every response.
    static func equalIgnoringCase(_ lhs: String, _ rhs: String) -> Bool {
        let a = lhs.utf8
        let b = rhs.utf8
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) where x != y {
            guard lowercase(x) == lowercase(y) else { return false }
        }
        return true
    }

    static func lowercase(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
