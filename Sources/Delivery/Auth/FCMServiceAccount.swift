import PushCore

/// The fields of a Google service-account JSON key file that FCM HTTP v1 needs.
public struct FCMServiceAccount: Sendable, Hashable {
    public var clientEmail: String
    public var privateKeyPEM: String
    public var tokenURI: String
    public var projectId: String?

    public init(clientEmail: String, privateKeyPEM: String, tokenURI: String, projectId: String? = nil) {
        self.clientEmail = clientEmail
        self.privateKeyPEM = privateKeyPEM
        self.tokenURI = tokenURI
        self.projectId = projectId
    }

    public init(json text: String) throws(CredentialError) {
        let document: JSON
        do {
            document = try JSON.parse(text)
        } catch {
            throw .invalidServiceAccount("not JSON: \(error)")
        }
        guard let email = document["client_email"]?.stringValue, !email.isEmpty else {
            throw .invalidServiceAccount("client_email is missing")
        }
        guard let key = document["private_key"]?.stringValue, !key.isEmpty else {
            throw .invalidServiceAccount("private_key is missing")
        }
        // Google's own files always name the endpoint; fall back to it for hand-written ones.
        let tokenURI = document["token_uri"]?.stringValue ?? "https://oauth2.googleapis.com/token"
        self.init(
            clientEmail: email, privateKeyPEM: key, tokenURI: tokenURI, projectId: document["project_id"]?.stringValue
        )
    }

    public init(file path: String) throws(CredentialError) {
        try self.init(json: try CredentialFile.read(path))
    }
}
