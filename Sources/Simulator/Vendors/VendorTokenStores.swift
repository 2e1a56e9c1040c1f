import NIOCore

/// The access tokens every vendor look-alike issued, one ``AccessTokenStore`` per realm.
struct VendorTokenStores {
    private var stores: [VendorTokenRealm: AccessTokenStore] = [:]

    mutating func issue(in realm: VendorTokenRealm, lifetimeSeconds: Int) -> String {
        self.stores[realm, default: AccessTokenStore()].issue(
            lifetime: .seconds(Int64(lifetimeSeconds)), prefix: realm.tokenPrefix)
    }

    func isValid(_ token: Substring, in realm: VendorTokenRealm) -> Bool {
        self.stores[realm]?.isValid(token) ?? false
    }

    /// Forgets every issued token (`POST /_sim/vendors/revoke`) and says how many there were.
    mutating func revokeAll() -> Int {
        let count = self.stores.values.reduce(0) { $0 + $1.count }
        self.stores.removeAll()
        return count
    }
}
