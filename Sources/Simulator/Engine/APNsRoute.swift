/// Constants of Apple's HTTP/2 provider API that the look-alike enforces.
enum APNsRoute {
    static let prefix = "/3/device/"
    static let maximumPayloadBytes = 4096
    /// VoIP pushes may be larger.
    static let maximumVoIPPayloadBytes = 5120
    static let maximumCollapseIDBytes = 64
    static let pushTypes: Set<String> = [
        "alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity",
        "pushtotalk", "widgets", "controls",
    ]
    static let priorities: Set<String> = ["1", "5", "10"]
}
