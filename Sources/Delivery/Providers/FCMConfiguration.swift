/// One FCM service account and where to use it.
public struct FCMConfiguration: Sendable {
    public static let production = "https://fcm.googleapis.com"

    /// Base URL of the FCM API.
    public var endpoint: String
    /// The OAuth token endpoint; `nil` takes the service account's `token_uri`.
    public var tokenEndpoint: String?
    /// The Firebase project; `nil` takes the service account's `project_id`.
    public var projectId: String?
    public var serviceAccountFile: String
    /// Trusted CAs (a simulator's, in tests and demos); `nil` uses the system store.
    public var caFile: String?
    public var requestTimeout: Duration
    /// HTTP/2 connections to FCM (the token endpoint gets its own).
    public var connections: Int
    /// Requests handed to the HTTP/2 library at once.
    public var maxInFlight: Int
    /// The HTTP/2 library the messages go through (the token endpoint always uses libcurl).
    public var transport: TransportLibrary

    public init(
        endpoint: String = FCMConfiguration.production,
        tokenEndpoint: String? = nil,
        projectId: String? = nil,
        serviceAccountFile: String,
        caFile: String? = nil,
        requestTimeout: Duration = .seconds(10),
        connections: Int = 2,
        maxInFlight: Int = 2000,
        transport: TransportLibrary = .standard
    ) {
        self.endpoint = endpoint
        self.tokenEndpoint = tokenEndpoint
        self.projectId = projectId
        self.serviceAccountFile = serviceAccountFile
        self.caFile = caFile
        self.requestTimeout = requestTimeout
        self.connections = connections
        self.maxInFlight = maxInFlight
        self.transport = transport
    }
}
