import Testing

@testable import PushCore

/// Issue 16: typed values (Pointer, GeoPoint, Date, Bytes), per-class type inference and class names.
@Suite("Object types and inference")
struct ObjectTypeTests {
    static let geo: JSON = ["__type": "GeoPoint", "latitude": 39.9, "longitude": 116.3]
    static let pointer: JSON = ["__type": "Pointer", "className": "_User", "objectId": "u1"]

    @Test("GeoPoints: bounds are inclusive, anything outside or not a number is code 111")
    func geoPoints() throws {
        for (lat, lng): (JSON, JSON) in [(90, 180), (-90, -180), (0, 0), (.double(-89.5), .double(179.999))] {
            try TypedValue.validate(["__type": "GeoPoint", "latitude": lat, "longitude": lng])
        }
        for (lat, lng): (JSON, JSON?) in [
            (200, 0), (.double(90.0001), 0), (0, .double(-180.5)), ("10", 0), (10, nil), (.null, 0),
        ] {
            var o: [String: JSON] = ["__type": "GeoPoint", "latitude": lat]
            o["longitude"] = lng
            #expect(throws: LeanError(111, "This is not a valid GeoPoint")) { try TypedValue.validate(.object(o)) }
        }
    }

    @Test("Pointers, Dates and Bytes are checked wherever they sit; unknown __types are plain objects")
    func typedValues() throws {
        try TypedValue.validate(Self.pointer)
        try TypedValue.validate(["__type": "Date", "iso": "2026-03-04T05:06:07.891Z"])
        try TypedValue.validate(["__type": "Bytes", "base64": "aGVsbG8="])
        try TypedValue.validate(["__type": "File", "anything": 1])
        #expect(throws: TypedValue.invalidPointer) {
            try TypedValue.validate(["__type": "Pointer", "className": "_Foo", "objectId": "x"])
        }
        #expect(throws: TypedValue.invalidPointer) {
            try TypedValue.validate(["list": [["__type": "Pointer", "className": "Team"]]])
        }
        #expect(throws: TypedValue.invalidDate) { try TypedValue.validate(["__type": "Date", "iso": "yesterday"]) }
        #expect(throws: TypedValue.invalidBytes) { try TypedValue.validate(["__type": "Bytes", "base64": "@@"]) }
    }

    @Test("class names: letters first, _User and _Installation are the only reserved names")
    func classNames() throws {
        for good in ["Team", "a", "Team_2", "_User", String(repeating: "x", count: 128)] {
            #expect(ClassName.isValid(good), "\(good)")
        }
        for bad in ["", "_Foo", "2Team", "Te-am", "Tëam", String(repeating: "x", count: 129), "_Role"] {
            #expect(!ClassName.isValid(bad), "\(bad)")
        }
        #expect(throws: LeanError.invalidClassName("_Installation")) {
            try ClassName.requireObjectClass("_Installation")
        }
        #expect(try ClassName.requireObjectClass("_User") == "_User")
    }

    @Test("the first value fixes a field's type; another type later is code 111 and names both")
    func inference() throws {
        let first = try ObjectUpdate.apply(
            body: ["city": "Beijing", "loc": Self.geo, "owner": Self.pointer, "n": 1, "tags": ["a"]], to: [:],
            className: "Team", isCreate: true)
        let types = try first.newTypes(known: [:])
        #expect(
            types == [
                "city": .string, "loc": .geoPoint, "owner": .pointer(className: "_User"), "n": .number, "tags": .array,
            ])
        #expect(types.mapValues(\.description)["owner"] == "Pointer<_User>")
        #expect(types.values.allSatisfy { FieldType(stored: $0.description) == $0 })

        let clash = try ObjectUpdate.apply(body: ["loc": "here"], to: first.fields, className: "Team", isCreate: false)
        #expect(throws: LeanError(111, "Invalid value type for field 'loc', expected GeoPoint but got String")) {
            try clash.newTypes(known: types)
        }
        let otherClass = try ObjectUpdate.apply(
            body: ["owner": ["__type": "Pointer", "className": "Team", "objectId": "t"]], to: [:], className: "Team",
            isCreate: true)
        #expect(
            throws: LeanError(
                111, "Invalid value type for field 'owner', expected Pointer<_User> but got Pointer<Team>")
        ) { try otherClass.newTypes(known: types) }
        // The same type again fixes nothing new; Increment keeps a Number a Number.
        let same = try ObjectUpdate.apply(
            body: ["n": ["__op": "Increment", "amount": 2]], to: first.fields, className: "Team", isCreate: false)
        #expect(same.set["n"] == 3)
        #expect(try same.newTypes(known: types).isEmpty)
    }

    @Test("a class has at most one GeoPoint field")
    func oneGeoPoint() throws {
        let second = try ObjectUpdate.apply(body: ["home": Self.geo], to: [:], className: "Team", isCreate: true)
        #expect(throws: LeanError.self) { try second.newTypes(known: ["loc": .geoPoint]) }
        let two = try ObjectUpdate.apply(body: ["a": Self.geo, "b": Self.geo], to: [:], className: "T", isCreate: true)
        #expect(throws: LeanError.self) { try two.newTypes(known: [:]) }
        #expect(try second.newTypes(known: ["home": .geoPoint]).isEmpty)
    }

    @Test("_User refuses password, sessionToken and authData; other classes may use those names")
    func userFields() throws {
        #expect(throws: LeanError.self) {
            try ObjectUpdate.apply(body: ["password": "secret"], to: [:], className: "_User", isCreate: true)
        }
        _ = try ObjectUpdate.apply(body: ["password": "x"], to: [:], className: "Team", isCreate: true)
        let user = try ObjectUpdate.apply(body: ["username": "ann"], to: [:], className: "_User", isCreate: true)
        #expect(user.set == ["username": "ann"])
    }

    @Test("installations validate typed values too: a bad owner Pointer or GeoPoint is code 111")
    func installationTypedValues() throws {
        let base: [String: JSON] = ["deviceType": "ios", "deviceToken": .string(String(repeating: "ab", count: 32))]
        var good = base
        good["owner"] = Self.pointer
        good["where"] = Self.geo
        #expect(try InstallationUpdate.apply(body: good, to: [:], isCreate: true).fields["owner"] == Self.pointer)
        var bad = base
        bad["where"] = ["__type": "GeoPoint", "latitude": 200, "longitude": 0]
        #expect(throws: TypedValue.invalidGeoPoint) { try InstallationUpdate.apply(body: bad, to: [:], isCreate: true) }
        bad["where"] = nil
        bad["owner"] = ["__type": "Pointer", "className": "_User"]
        #expect(throws: TypedValue.invalidPointer) { try InstallationUpdate.apply(body: bad, to: [:], isCreate: true) }
    }
}
