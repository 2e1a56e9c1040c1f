import PushCore
import Testing

/// `PushTargeted.counted` counts a page's targets, or takes the number a rebuild's log scan sends in their place.
struct PushTargetedCountTests {
    @Test func countsTheTargetsWhenTheyAreThere() throws {
        let data = try JSON.parse(#"{"objectId":"p1","batch":0,"at":"2026-01-01T00:00:00.000Z","targets":[{},{},{}]}"#)
        let counted = try PushTargeted.counted(data)
        #expect(counted.objectId == "p1")
        #expect(counted.devices == 3)
    }

    @Test func takesTheCountInPlaceOfTheTargets() throws {
        let counted = try PushTargeted.counted(try JSON.parse(#"{"objectId":"p2","targetCount":500}"#))
        #expect(counted.devices == 500)
        #expect(try PushTargeted.counted(try JSON.parse(#"{"objectId":"p2","targetCount":0}"#)).devices == 0)
    }

    @Test func refusesDataWithNeitherOrANegativeCount() {
        for text in [
            #"{"objectId":"p3"}"#, #"{"objectId":"p3","targetCount":-1}"#, #"{"objectId":"p3","targetCount":"5"}"#,
            #"{"targets":[]}"#, #"{"objectId":"p3","targets":"x","targetCount":5}"#,
        ] {
            #expect(throws: MalformedPayload.self, "\(text)") { try PushTargeted.counted(try JSON.parse(text)) }
        }
    }
}
