/// A request under one of the vendor look-alikes' path prefixes (`/hms`, `/mi-global`, …): each vendor's base URL
/// setting ends in its prefix, and the vendor's own path follows it.
struct VendorRoute {
    var vendor: SimulatedProvider
    /// Came to the prefix standing for the vendor's global host (`/mi-global`, `/oppo-global`).
    var isGlobal: Bool
    /// The vendor's own path, e.g. `/v3/message/regid`.
    var path: Substring

    /// Longer prefixes first would not matter (each is matched with its trailing slash), but it reads safer.
    static let prefixes: [(prefix: String, vendor: SimulatedProvider, isGlobal: Bool)] = [
        ("/hms", .hms, false), ("/honor", .honor, false), ("/mi-global", .mi, true), ("/mi", .mi, false),
        ("/oppo-global", .oppo, true), ("/oppo", .oppo, false), ("/vivo", .vivo, false), ("/mz", .mz, false),
    ]

    init?(path: Substring) {
        for candidate in Self.prefixes {
            guard path.utf8.starts(with: candidate.prefix.utf8) else { continue }
            let rest = path.dropFirst(candidate.prefix.count)
            guard rest.first == "/" else { continue }
            self.vendor = candidate.vendor
            self.isGlobal = candidate.isGlobal
            self.path = rest
            return
        }
        return nil
    }

    /// Token exchanges are counted under `<vendor>Auth` and answered without the simulated latency, as the OAuth
    /// look-alikes are.
    var isTokenExchange: Bool {
        switch self.vendor {
        case .hms: return self.path == HMSRoute.tokenPath
        case .honor: return self.path == HonorRoute.tokenPath
        case .oppo: return self.path == OPPORoute.authPath
        case .vivo: return self.path == VivoRoute.authPath
        default: return false
        }
    }

    /// The realm whose tokens a send to this route needs, nil for vendors without a token exchange.
    var tokenRealm: VendorTokenRealm? {
        switch self.vendor {
        case .hms: return .hms
        case .honor: return .honor
        case .oppo: return self.isGlobal ? .oppoGlobal : .oppo
        case .vivo: return .vivo
        default: return nil
        }
    }

    /// `<prefix><id><suffix>` with one non-empty path segment as the id (the app id in HMS's and Honor's paths).
    static func segment(of path: Substring, between prefix: String, and suffix: String) -> Substring? {
        guard path.hasPrefix(prefix), path.hasSuffix(suffix), path.count > prefix.count + suffix.count else {
            return nil
        }
        let segment = path.dropFirst(prefix.count).dropLast(suffix.count)
        return segment.contains("/") ? nil : segment
    }
}
