import PushCore
import Testing

/// The related-class and geo operators (SPEC §12.1) refuse bad operands with the codes SPEC names: 107 for a
/// malformed geo operand, 111 for coordinates out of range, 102 for everything else.
struct WhereCompilerRelatedGeoTests {
    let compiler = WhereCompiler(schema: .installations, related: RelatedClasses(appId: "a", rights: .master))

    func code(_ query: String, _ compiler: WhereCompiler? = nil) throws -> Int? {
        let json = try JSON.parse(query)
        do {
            _ = try (compiler ?? self.compiler).compile(json)
            return nil
        } catch {
            return error.code.rawValue
        }
    }

    @Test(arguments: [
        (#"{"l":{"$nearSphere":{"__type":"GeoPoint","latitude":91,"longitude":0}}}"#, 111),
        (#"{"l":{"$nearSphere":{"__type":"GeoPoint","latitude":0,"longitude":-180.5}}}"#, 111),
        (#"{"l":{"$nearSphere":{"latitude":1,"longitude":1}}}"#, 107),
        (#"{"l":{"$nearSphere":{"__type":"GeoPoint","latitude":1,"longitude":1},"$maxDistance":-1}}"#, 107),
        (#"{"l":{"$maxDistanceInMiles":1}}"#, 102),
        (#"{"l":{"$within":{"$box":[{"__type":"GeoPoint","latitude":1,"longitude":1}]}}}"#, 107),
        (#"{"l":{"$geoWithin":{"$polygon":[[0,0],[1,1]]}}}"#, 107),
        (#"{"l":{"$geoWithin":{"$centerSphere":[[0,95],0.1]}}}"#, 111),
        (#"{"createdAt":{"$nearSphere":{"__type":"GeoPoint","latitude":1,"longitude":1}}}"#, 102),
        (#"{"o":{"$inQuery":5}}"#, 102),
        (#"{"o":{"$inQuery":{"className":"Bad Name","where":{}}}}"#, 103),
        (#"{"o":{"$inQuery":{"where":{},"className":5}}}"#, 102),
        (#"{"o":{"$inQuery":{"className":"_Installation","where":{}}}}"#, 102),
        (#"{"objectId":{"$inQuery":{"className":"Team","where":{}}}}"#, 102),
        (#"{"o":{"$select":{"query":{"className":"Team"}}}}"#, 102),
        (#"{"o":{"$select":{"query":{"className":"Team"},"key":"k","x":1}}}"#, 102),
        (
            #"{"o":{"$inQuery":{"className":"Team","where":{"p":{"$inQuery":{"className":"T","where":{"q":{"$inQuery":{"className":"U","where":{"r":{"$inQuery":{"className":"V","where":{"s":{"$inQuery":{"className":"W","where":{}}}}}}}}}}}}}}}}"#,
            102
        ),
    ])
    func refused(query: String, expected: Int) throws {
        #expect(try code(query) == expected)
    }

    @Test("the classes a where names in sub-queries, at any depth")
    func referenced() throws {
        let query = try JSON.parse(
            #"{"$or":[{"a":{"$inQuery":{"className":"Team","where":{"b":{"$select":{"query":{"className":"_User"},"key":"k"}}}}}},{"c":{"$notInQuery":{"where":{}}}}]}"#
        )
        #expect(WhereCompiler.referencedClasses(query) == ["Team", "_User"])
    }

    @Test("related operators need to know the app; geo and related operands that are right compile")
    func accepted() throws {
        #expect(
            try code(#"{"o":{"$inQuery":{"className":"Team","where":{}}}}"#, WhereCompiler(schema: .installations))
                == 102)
        for query in [
            #"{"o":{"$inQuery":{"location":{"$nearSphere":{"__type":"GeoPoint","latitude":30,"longitude":-20},"$maxDistanceInMiles":1}}}}"#,
            #"{"o":{"$notInQuery":{"className":"_User","where":{"a":1}}}}"#,
            #"{"u":{"$dontSelect":{"query":{"className":"_User","where":{"v":true}},"key":"objectId"}}}"#,
            #"{"l":{"$within":{"$box":[{"__type":"GeoPoint","latitude":-1,"longitude":179},{"__type":"GeoPoint","latitude":1,"longitude":-179}]}}}"#,
            #"{"l":{"$geoWithin":{"$polygon":[{"__type":"GeoPoint","latitude":0,"longitude":0},[1,0],[1,1]]}}}"#,
        ] {
            #expect(try code(query) == nil, "\(query)")
        }
    }
}
