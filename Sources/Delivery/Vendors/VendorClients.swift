import Foundation
import Logging
import PushCore

/// The vendor folders' clients, by vendor: the one place a new vendor is added to the fan-out.
enum VendorClients {
    /// The credentials each vendor needs in a profile (SPEC §12.3); without them its devices are `NoCredentials`.
    static func requiredKeys(_ vendor: AndroidVendor) -> [String] {
        switch vendor {
        case .hms: HMSClient.requiredKeys
        case .honor: HonorClient.requiredKeys
        case .mi, .miIntl: XiaomiClient.requiredKeys
        case .oppo: OPPOClient.requiredKeys
        case .vivo: VivoClient.requiredKeys
        case .mz: MeizuClient.requiredKeys
        case .fcm, .lc: []
        }
    }

    /// A client for `vendor` from a profile's settings; `NoCredentials` naming the missing setting, or
    /// `InvalidProviderCredentials` when they cannot be used.
    static func make(
        _ vendor: AndroidVendor, settings: VendorSettings, clock: ServiceClock, logger: Logger
    ) throws(ProviderRegistry.Failure) -> any VendorClient {
        _ = try settings.require(requiredKeys(vendor))
        do {
            switch vendor {
            case .hms: return try HMSClient(settings: settings, logger: logger, clock: clock)
            case .honor: return try HonorClient(settings: settings, logger: logger, clock: clock)
            case .mi, .miIntl: return try XiaomiClient(vendor: vendor, settings: settings, logger: logger)
            case .oppo: return try OPPOClient(settings: settings, logger: logger, clock: clock)
            case .vivo: return try VivoClient(settings: settings, logger: logger, clock: clock)
            case .mz: return try MeizuClient(settings: settings, logger: logger)
            case .fcm, .lc: throw DeliverySetupError.credentials(.invalidClientCredentials("not a vendor API"))
            }
        } catch {
            throw .badCredentials("\(settings.name(requiredKeys(vendor).first ?? "")): \(error)")
        }
    }
}
