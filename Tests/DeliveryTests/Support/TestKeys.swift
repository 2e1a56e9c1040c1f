import Crypto
import Foundation
import PushCore
import _CryptoExtras

/// Throw-away credentials written to a temporary folder: an APNs `.p8` key and an FCM service-account file.
enum TestKeys {
    static let directory: String = {
        let path = NSTemporaryDirectory() + "delivery-tests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    nonisolated(unsafe) static let apnsKey = P256.Signing.PrivateKey()

    /// The key as Apple ships it: PEM PKCS#8.
    static let apnsKeyFile: String = {
        let path = directory + "/AuthKey_TESTKEY123.p8"
        try! apnsKey.pemRepresentation.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }()

    static let rsaKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

    static func serviceAccountJSON(tokenURI: String, projectId: String = "demo-project") -> String {
        JSON.object([
            "type": "service_account", "project_id": .string(projectId),
            "private_key_id": "0123456789abcdef", "private_key": .string(rsaKey.pkcs8PEMRepresentation),
            "client_email": "pushledger@demo-project.iam.gserviceaccount.com", "client_id": "1",
            "token_uri": .string(tokenURI),
        ]).encoded()
    }

    static func serviceAccountFile(tokenURI: String, projectId: String = "demo-project") -> String {
        let path = directory + "/service-account-" + UUID().uuidString + ".json"
        try! serviceAccountJSON(tokenURI: tokenURI, projectId: projectId)
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
