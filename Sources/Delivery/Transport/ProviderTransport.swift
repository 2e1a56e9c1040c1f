import Curl
import HTTPTypes
import Logging
import NGHTTP2

/// The HTTP/2 client a per-device provider (APNs, FCM) sends its notifications through, on the library
/// `TransportLibrary` names. A provider client makes and owns one per set of TLS credentials.
final class ProviderTransport: Sendable {
    enum Client: Sendable {
        case nghttp2(NGHTTP2Client)
        case libcurl(CurlClient)
    }

    /// How to connect and how much to carry at once; the same knobs for every library.
    struct Settings: Sendable {
        var tls: CurlTLSConfiguration
        var hostConnections: Int
        /// libcurl's bound over every host (a token endpoint may share its client); nghttp2 connects to one.
        var totalConnections: Int
        var maxInFlight: Int
        var timeout: Duration
    }

    let client: Client
    let library: TransportLibrary

    init(_ library: TransportLibrary, settings: Settings, logger: Logger?) throws(DeliverySetupError) {
        self.library = library
        switch library {
        case .nghttp2:
            let tls = settings.tls
            let configuration = NGHTTP2Configuration(
                tls: NGHTTP2TLSConfiguration(
                    caFile: tls.caFile, clientCertificateFile: tls.clientCertificateFile,
                    clientKeyFile: tls.clientKeyFile, clientKeyPassword: tls.clientKeyPassword,
                    verifyPeer: tls.verifyPeer, verifyHost: tls.verifyHost),
                maxHostConnections: settings.hostConnections, maxInFlight: settings.maxInFlight,
                defaultTimeout: settings.timeout)
            do {
                client = .nghttp2(try NGHTTP2Client(configuration: configuration, logger: logger))
            } catch {
                throw .http(.nghttp2(error))
            }
        case .libcurl:
            let configuration = CurlConfiguration(
                tls: settings.tls, maxHostConnections: settings.hostConnections,
                maxTotalConnections: settings.totalConnections, maxInFlight: settings.maxInFlight,
                defaultTimeout: settings.timeout)
            do {
                client = .libcurl(try CurlClient(configuration: configuration, logger: logger))
            } catch {
                throw .http(.libcurl(error))
            }
        }
    }

    /// `fields` as lines many requests share, in this library's form.
    func sharedLines(_ fields: HTTPFields) -> SharedHeaderLines {
        switch client {
        case .nghttp2: SharedHeaderLines(.nghttp2(NGHTTP2HeaderBlock(fields)))
        case .libcurl: SharedHeaderLines(.libcurl(CurlHeaderBlock(fields)))
        }
    }

    /// One submission for many requests; results in their order, once every one is answered.
    func send(all requests: [ProviderRequest]) async -> [Result<ProviderResponse, TransportFailure>] {
        switch client {
        case .nghttp2(let nghttp2):
            let results = await nghttp2.send(
                all: requests.map {
                    NGHTTP2Request(
                        method: $0.method, url: $0.url, headers: $0.headers, body: $0.body, timeout: $0.timeout,
                        sharedHeaders: $0.shared?.nghttp2Block)
                })
            return results.map { result in
                result.map { ProviderResponse(received: .nghttp2($0)) }.mapError { .nghttp2($0) }
            }
        case .libcurl(let curl):
            let results = await curl.send(
                all: requests.map {
                    CurlRequest(
                        method: $0.method, url: $0.url, headers: $0.headers, body: $0.body, timeout: $0.timeout,
                        sharedHeaders: $0.shared?.curlBlock)
                })
            return results.map { result in
                result.map { ProviderResponse(received: .libcurl($0)) }.mapError { .libcurl($0) }
            }
        }
    }

    /// The libcurl client, where this transport is one: what a provider's token endpoint may share.
    var curlClient: CurlClient? {
        if case .libcurl(let curl) = client { curl } else { nil }
    }

    func shutdown() async {
        switch client {
        case .nghttp2(let nghttp2): await nghttp2.shutdown()
        case .libcurl(let curl): await curl.shutdown()
        }
    }

    var statistics: TransportStatistics {
        switch client {
        case .nghttp2(let nghttp2): TransportStatistics(nghttp2.statistics)
        case .libcurl(let curl): TransportStatistics(curl.statistics)
        }
    }
}
