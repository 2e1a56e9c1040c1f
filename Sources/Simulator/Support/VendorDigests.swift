import Crypto
import Foundation

/// The lowercase hex digests OPPO's, vivo's and Meizu's signatures are made of.
enum VendorDigests {
    static func sha256(_ text: String) -> String {
        HexDigits.encode(SHA256.hash(data: Data(text.utf8)))
    }

    static func md5(_ text: String) -> String {
        HexDigits.encode(Insecure.MD5.hash(data: Data(text.utf8)))
    }
}
