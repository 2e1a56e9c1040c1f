extension PushRequest {
    /// The channels a push named in its `channels` parameter (read back from the condition `parse` folds it
    /// into: `{"channels":{"$in":[…]}}`, alone or beside `where` in an `$and`), empty when it named none. The own
    /// channel's content carries the first as `_channel`, which the LeanCloud SDK uses to pick the callback the
    /// app subscribed for that channel (research/lc-push-channel.md §4).
    public var namedChannels: [String] {
        guard case .query(let condition) = audience else { return [] }
        let parts = condition["$and"]?.arrayValue ?? [condition]
        for part in parts {
            if let list = part["channels"]?["$in"]?.arrayValue { return list.compactMap(\.stringValue) }
        }
        return []
    }
}
