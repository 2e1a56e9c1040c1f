extension PushTarget {
    /// The targets of a batch row's or a `PushTargeted` event's JSON text (an array of target objects), read
    /// straight into `PushTarget`s: the same result as parsing the text into `JSON` and mapping each element
    /// through `init(json:)`, dropping elements that are not targets, without building a dictionary and key
    /// strings for every device. A sender reads a batch row of 1,000 targets for every batch it sends
    /// (`scripts/bench-json`). Text that is not an array reads as no targets, as `arrayValue ?? []` does.
    public static func list(jsonText text: String) throws(MalformedJSON) -> [PushTarget] {
        var parser = JSONParser(Array(text.utf8))
        return try parser.parseTargetDocument()
    }
}

extension JSONParser {
    /// `list(jsonText:)`'s reader: a whole document, whose value is an array of target objects.
    mutating func parseTargetDocument() throws(MalformedJSON) -> [PushTarget] {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else {
            _ = try parseDocument()
            return []
        }
        var targets: [PushTarget] = []
        try readArray { parser throws(MalformedJSON) in
            if let target = try parser.parseTargetElement() { targets.append(target) }
        }
        skipWhitespace()
        guard index == bytes.count else { throw MalformedJSON("unexpected text after the JSON value") }
        return targets
    }

    /// One array element: a target when it is an object with the string fields `o`, `t` and `k` (and
    /// optionally `p`, `b`, `v`, `i` and `c`), else nil, read as `PushTarget.init(json:)` reads it; a later duplicate key wins,
    /// as in `JSON`'s dictionary.
    private mutating func parseTargetElement() throws(MalformedJSON) -> PushTarget? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else {
            _ = try parseValue()
            return nil
        }
        var o: JSON?, t: JSON?, k: JSON?, p: JSON?, b: JSON?, v: JSON?, i: JSON?, c: JSON?
        try readObject(key: { parser throws(MalformedJSON) in try parser.parseTargetKey() }) {
            parser, key throws(MalformedJSON) in
            let value = try parser.parseValue()
            switch key {
            case UInt8(ascii: "o"): o = value
            case UInt8(ascii: "t"): t = value
            case UInt8(ascii: "k"): k = value
            case UInt8(ascii: "p"): p = value
            case UInt8(ascii: "b"): b = value
            case UInt8(ascii: "v"): v = value
            case UInt8(ascii: "i"): i = value
            case UInt8(ascii: "c"): c = value
            default: break
            }
        }
        guard let objectId = o?.stringValue, let deviceType = t?.stringValue, let token = k?.stringValue else {
            return nil
        }
        return PushTarget(
            objectId: objectId, deviceType: deviceType, token: token, profile: p?.stringValue, badge: b?.intValue,
            vendor: v?.stringValue, apnsTeam: i?.stringValue, apnsTopic: c?.stringValue)
    }

    /// A key at `index` (its opening quote): the letter of a one-letter ASCII key written plainly, the
    /// target's keys, compared as bytes; 0 for any other key, which is read (and checked) as a string. A quote
    /// or a backslash as the letter is left to the string reader: `""` is an empty key followed by a stray quote.
    private mutating func parseTargetKey() throws(MalformedJSON) -> UInt8 {
        if index + 2 < bytes.count, bytes[index + 2] == UInt8(ascii: "\""), bytes[index + 1] != UInt8(ascii: "\\"),
            bytes[index + 1] != UInt8(ascii: "\""), bytes[index + 1] >= 0x20, bytes[index + 1] < 0x80
        {
            index += 3
            return bytes[index - 2]
        }
        let key = try parseString()
        // An escaped spelling of a one-letter key (`"\u006f"`) is still that key.
        return key.utf8.count == 1 ? key.utf8.first! : 0
    }
}

extension PushTargeted {
    /// `json.encoded()`, written straight from the targets: the same text (keys in sorted order, a target's
    /// profile left out when empty and its badge when nil), without a dictionary of every target to build,
    /// sort and free. The fan-out writes one page of 1,000 targets per batch (`scripts/bench-json`).
    public var encodedText: String {
        var out: [UInt8] = []
        out.reserveCapacity(64 + targets.count * 120)
        out.append(contentsOf: #"{"at":"#.utf8)
        JSON.writeString(at, to: &out)
        out.append(contentsOf: #","batch":"#.utf8)
        JSON.writeInteger(batch, to: &out)
        out.append(contentsOf: #","objectId":"#.utf8)
        JSON.writeString(objectId, to: &out)
        out.append(contentsOf: #","targets":["#.utf8)
        for (i, target) in targets.enumerated() {
            out.append(contentsOf: (i == 0 ? #"{"# : #",{"#).utf8)
            if let badge = target.badge {
                out.append(contentsOf: #""b":"#.utf8)
                JSON.writeInteger(badge, to: &out)
                out.append(UInt8(ascii: ","))
            }
            if let topic = target.apnsTopic, !topic.isEmpty {
                out.append(contentsOf: #""c":"#.utf8)
                JSON.writeString(topic, to: &out)
                out.append(UInt8(ascii: ","))
            }
            if let team = target.apnsTeam, !team.isEmpty {
                out.append(contentsOf: #""i":"#.utf8)
                JSON.writeString(team, to: &out)
                out.append(UInt8(ascii: ","))
            }
            out.append(contentsOf: #""k":"#.utf8)
            JSON.writeString(target.token, to: &out)
            out.append(contentsOf: #","o":"#.utf8)
            JSON.writeString(target.objectId, to: &out)
            if let profile = target.profile, !profile.isEmpty {
                out.append(contentsOf: #","p":"#.utf8)
                JSON.writeString(profile, to: &out)
            }
            out.append(contentsOf: #","t":"#.utf8)
            JSON.writeString(target.deviceType, to: &out)
            if let vendor = target.vendor, !vendor.isEmpty {
                out.append(contentsOf: #","v":"#.utf8)
                JSON.writeString(vendor, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: "]}".utf8)
        return String(decoding: out, as: UTF8.self)
    }

    /// The page's data with its targets replaced by their number (`targetCountKey`), as `counted` reads it: the
    /// shape a rebuild's log scan builds in SQL and hands on to the projections (none reads more).
    public var countedJSON: JSON {
        [
            "objectId": .string(objectId), "batch": .int(batch), "at": .string(at),
            PushTargeted.targetCountKey: .int(Int64(targets.count)),
        ]
    }
}
