import HTTPTypes

/// Counts how often a mapping evaluates its `headers` argument.
final class HeaderReads {
    private(set) var count = 0

    func fields(_ lines: [String: String] = [:]) -> HTTPFields {
        count += 1
        var fields = HTTPFields()
        for (name, value) in lines { fields[HTTPField.Name(name)!] = value }
        return fields
    }
}
