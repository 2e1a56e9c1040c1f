/// The HTTP/2 libraries `serve --transport` takes: the fan-out, crash and fault suites run on each.
public enum ServerTransports {
    public static let all = ["nghttp2", "libcurl"]

    /// `serve`'s arguments for `transport`.
    public static func arguments(_ transport: String) -> [String] { ["--transport", transport] }
}
