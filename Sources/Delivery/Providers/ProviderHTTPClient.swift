import Curl
import Logging

/// The curl client a provider client sends through: the caller's shared one, or one of its own.
enum ProviderHTTPClient {
    static func make(
        shared: CurlClient?, tls: CurlTLSConfiguration, hostConnections: Int, totalConnections: Int,
        maxInFlight: Int, timeout: Duration, logger: Logger?
    ) throws(DeliverySetupError) -> (client: CurlClient, owned: Bool) {
        if let shared { return (shared, false) }
        let configuration = CurlConfiguration(
            tls: tls, maxHostConnections: hostConnections, maxTotalConnections: totalConnections,
            maxInFlight: maxInFlight, defaultTimeout: timeout
        )
        do {
            return (try CurlClient(configuration: configuration, logger: logger), true)
        } catch {
            throw .http(.libcurl(error))
        }
    }
}
