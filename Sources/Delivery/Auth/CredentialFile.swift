import Foundation

/// Reads key and service-account files, turning I/O failures into `CredentialError`.
enum CredentialFile {
    static func read(_ path: String) throws(CredentialError) -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .unreadableFile(path: path, reason: "\(error.localizedDescription)")
        }
    }
}
