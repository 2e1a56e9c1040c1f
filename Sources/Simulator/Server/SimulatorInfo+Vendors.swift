/// The settings that point an app's Android vendor clients at the look-alikes (SPEC §12.3's keys).
extension SimulatorInfo {
    var vendorSettings: [String: String] {
        let base = self.baseURL
        var settings: [String: String] = [
            "hms.app_id": HMSRoute.appID,
            "hms.client_secret": HMSRoute.clientSecret,
            "hms.endpoint": base + "/hms",
            "hms.token_endpoint": base + "/hms" + HMSRoute.tokenPath,
            "honor.app_id": HonorRoute.appID,
            "honor.client_id": HonorRoute.clientID,
            "honor.client_secret": HonorRoute.clientSecret,
            "honor.endpoint": base + "/honor",
            "honor.token_endpoint": base + "/honor" + HonorRoute.tokenPath,
            "mi.app_secret": XiaomiRoute.appSecret,
            "mi.package_name": XiaomiRoute.packageName,
            "mi.endpoint": base + "/mi",
            "mi.global_endpoint": base + "/mi-global",
            "oppo.app_key": OPPORoute.appKey,
            "oppo.master_secret": OPPORoute.masterSecret,
            "oppo.endpoint": base + "/oppo",
            "oppo.global_endpoint": base + "/oppo-global",
            "vivo.app_id": String(VivoRoute.appID),
            "vivo.app_key": VivoRoute.appKey,
            "vivo.app_secret": VivoRoute.appSecret,
            "vivo.endpoint": base + "/vivo",
            "mz.app_id": MeizuRoute.appID,
            "mz.app_secret": MeizuRoute.appSecret,
            "mz.endpoint": base + "/mz",
            // Meizu's global host serves the same API; the look-alike answers both at one prefix.
            "mz.global_endpoint": base + "/mz",
        ]
        for vendor in SimulatedProvider.androidVendors {
            settings[vendor.rawValue + ".ca_file"] = self.caFile
        }
        return settings
    }
}
