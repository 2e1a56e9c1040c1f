/// Constants of the WNS look-alike: channel URIs are `https://<simulator>/wns/<channel id>`, and the token
/// endpoint imitates `https://login.live.com/accesstoken.srf`.
enum WNSRoute {
    static let prefix = "/wns/"
    static let tokenPath = "/accesstoken.srf"
    static let scope = "notify.windows.com"
    /// WNS refuses notifications over 5 KB.
    static let maxPayloadBytes = 5120

    /// The root element each `X-WNS-Type` with an XML payload must have; raw takes any bytes.
    static let rootElements = ["wns/toast": "toast", "wns/tile": "tile", "wns/badge": "badge"]
    static let raw = "wns/raw"
}
