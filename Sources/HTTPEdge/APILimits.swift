/// Request size limits (SPEC §2, §4.1).
public enum APILimits {
    public static let maxBodyBytes = 64 * 1024
    public static let maxPushBodyBytes = 4096
}
