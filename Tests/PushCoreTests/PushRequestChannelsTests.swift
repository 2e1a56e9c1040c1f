import Foundation
import Testing

@testable import PushCore

/// `namedChannels` reads back the channels `parse` folded into the audience, which become `_channel` of the
/// own channel's content (SPEC §12.4).
@Suite struct PushRequestChannelsTests {
    static func parse(_ body: [String: JSON]) throws -> PushRequest {
        try PushRequest.parse(body, devicesEndpoint: false, headerProd: nil, now: Date(timeIntervalSince1970: 0))
    }

    @Test func channelsAloneOrBesideWhere() throws {
        #expect(
            try Self.parse(["channels": ["news", "sport"], "data": ["alert": "a"]]).namedChannels == ["news", "sport"])
        let both = try Self.parse(
            ["channels": ["news"], "where": ["deviceType": "android"], "data": ["alert": "a"]])
        #expect(both.namedChannels == ["news"])
    }

    @Test func noChannelsNamed() throws {
        #expect(try Self.parse(["where": ["deviceType": "android"], "data": ["alert": "a"]]).namedChannels == [])
        #expect(try Self.parse(["data": ["alert": "a"]]).namedChannels == [])
    }
}
