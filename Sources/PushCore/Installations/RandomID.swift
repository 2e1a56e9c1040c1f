/// LeanCloud-style object ids: lower-case hex, random.
public enum RandomID {
    public static func make(length: Int = 24) -> String {
        var g = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return String((0..<length).map { _ in digits[Int(g.next() % 16)] })
    }
}
