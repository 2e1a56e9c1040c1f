import PushCore
import Testing

/// iOS payloads: exact JSON, push type, priority, badge increment, validation and size.
struct APNsPayloadTests {
    func payload(_ data: String, nid: String = "nid1", badge: Int64? = nil) throws -> APNsPayload {
        try #require(try PushData(JSON.parse(data)).apnsPayload(notificationId: nid, badge: badge))
    }

    @Test func seedExampleWithIncrementAndCustomKeys() throws {
        // LeanCloud's `title` is the alert's title (its REST guide), not a custom key.
        let data =
            #"{"alert":"The Mets scored!","badge":"Increment","sound":"cheering.caf","title":"Mets Score!","k":1}"#
        let p = try payload(data, badge: 4)
        #expect(
            p.body == #"{"_nid":"nid1","aps":{"alert":{"body":"The Mets scored!","title":"Mets Score!"},"badge":4,"#
                + #""sound":"cheering.caf"},"k":1}"#)
        #expect(p.pushType == .alert)
        #expect(p.priority == 10)
        #expect(p.json.encoded() == p.body)
    }

    @Test func everyApsKeyAndTheAlertDictionary() throws {
        let data = #"""
            {"alert":{"title":"T","subtitle":"S","body":"B","loc-key":"LK","loc-args":["a","b"],
            "title-loc-key":"TLK","title-loc-args":["c"],"action-loc-key":"ALK","launch-image":"img.png"},
            "badge":3,"sound":{"critical":1,"name":"alarm.caf","volume":0.5},"content-available":1,
            "mutable-content":true,"category":"NEWS","thread-id":"t1","p":"vmRZXZ1Dvo","action":{"type":4}}
            """#
        let p = try payload(data, nid: "abc")
        #expect(
            p.body == #"{"_nid":"abc","action":{"type":4},"aps":{"alert":{"action-loc-key":"ALK","body":"B","#
                + #""launch-image":"img.png","loc-args":["a","b"],"loc-key":"LK","subtitle":"S","title":"T","#
                + #""title-loc-args":["c"],"title-loc-key":"TLK"},"badge":3,"category":"NEWS","content-available":1,"#
                + #""mutable-content":1,"sound":{"critical":1,"name":"alarm.caf","volume":0.5},"thread-id":"t1"},"#
                + #""p":"vmRZXZ1Dvo"}"#)
        #expect(p.pushType == .alert)
    }

    @Test func onlyContentAvailableIsABackgroundPushAtPriority5() throws {
        let p = try payload(#"{"content-available":1,"refresh":"feed"}"#)
        #expect(p.body == #"{"_nid":"nid1","aps":{"content-available":1},"refresh":"feed"}"#)
        #expect(p.pushType == .background)
        #expect(p.priority == 5)
        #expect(p.pushType.rawValue == "background")
        #expect(try payload(#"{"content-available":1,"badge":2}"#).pushType == .alert)
        #expect(try payload(#"{"content-available":1,"sound":"a"}"#).pushType == .alert)
        #expect(try payload(#"{"content-available":0,"alert":"x"}"#).body == #"{"_nid":"nid1","aps":{"alert":"x"}}"#)
    }

    @Test func appleStyleApsIsMergedOverTopLevelKeys() throws {
        let p = try payload(#"{"alert":"top","badge":1,"aps":{"alert":"inner","interruption-level":"passive"}}"#)
        #expect(p.body == #"{"_nid":"nid1","aps":{"alert":"inner","badge":1,"interruption-level":"passive"}}"#)
    }

    @Test func incrementWithoutAKnownBadgeLeavesTheBadgeOut() throws {
        #expect(try payload(#"{"alert":"a","badge":"Increment"}"#).body == #"{"_nid":"nid1","aps":{"alert":"a"}}"#)
        #expect(try payload(#"{"aps":{"badge":"Increment"}}"#, badge: 9).body == #"{"_nid":"nid1","aps":{"badge":9}}"#)
    }

    @Test func nidAlwaysWinsAndNullsAreDropped() throws {
        let p = try payload(#"{"alert":null,"_nid":"spoofed","badge":2.0,"sound":null}"#, nid: "real")
        #expect(p.body == #"{"_nid":"real","aps":{"badge":2}}"#)
    }

    @Test func nonAsciiTextIsCountedInBytes() throws {
        let p = try payload(#"{"alert":"推送消息"}"#)
        #expect(p.body == #"{"_nid":"nid1","aps":{"alert":"推送消息"}}"#)
        #expect(p.body.utf8.count == 46)
    }

    @Test(arguments: [
        (#"{"alert":5}"#, "alert must be a string or an object, not number"),
        (#"{"alert":["a"]}"#, "alert must be a string or an object, not array"),
        (#"{"alert":{"title":1}}"#, "alert.title must be a string, not number"),
        (#"{"alert":{"loc-args":"a"}}"#, "alert.loc-args must be an array of strings"),
        (#"{"alert":{"title-loc-args":[1]}}"#, "alert.title-loc-args must be an array of strings"),
        (#"{"badge":-1}"#, "badge must be a non-negative integer or \"Increment\""),
        (#"{"badge":"increment"}"#, "badge must be a non-negative integer or \"Increment\""),
        (#"{"badge":1.5}"#, "badge must be a non-negative integer or \"Increment\""),
        (#"{"sound":true}"#, "sound must be a string or an object, not boolean"),
        (#"{"content-available":"yes"}"#, "content-available must be 0, 1 or a boolean"),
        (#"{"mutable-content":2}"#, "mutable-content must be 0, 1 or a boolean"),
        (#"{"category":1}"#, "category must be a string, not number"),
        (#"{"thread-id":{}}"#, "thread-id must be a string, not object"),
        (#"{"aps":"x"}"#, "aps must be a JSON object, not string"),
        (#"{"ios":{"alert":false}}"#, "alert must be a string or an object, not boolean"),
    ])
    func invalidIOSContentIsCode1(data: String, message: String) throws {
        let json = try JSON.parse(data)
        #expect(throws: PushDataError(.invalidValue, message)) { try PushData(json) }
        #expect(PushDataError(.invalidValue, message).code == 1)
    }

    @Test func oversizedPayloadIsATypedError() throws {
        let text = String(repeating: "a", count: 4100)
        let json: JSON = ["alert": .string(text)]
        // Validation measures with a 32-character placeholder id: 4100 + 62 bytes of structure.
        #expect(
            throws: PushDataError(
                .payloadTooLarge(size: 4162, limit: 4096),
                "APNs payload is 4162 bytes, over the 4096-byte limit")
        ) { try PushData(json) }
        // Exactly at the limit is fine: `{"_nid":"n","aps":{"alert":"…"}}` is 31 bytes around the alert.
        let fitting: JSON = ["alert": .string(String(repeating: "a", count: 4096 - 31))]
        let content = try #require(fitting.objectValue)
        let p = try APNsPayload(content: content, notificationId: "n", badge: nil)
        #expect(p.body.utf8.count == 4096)
        #expect(throws: PushDataError.self) { try APNsPayload(content: content, notificationId: "nn", badge: nil) }
    }

    @Test("title and subtitle join the alert; an alert dictionary's own title wins")
    func titleAndSubtitleJoinTheAlert() throws {
        let p = try payload(#"{"alert":"B","title":"T","subtitle":"S"}"#)
        #expect(p.body == #"{"_nid":"nid1","aps":{"alert":{"body":"B","subtitle":"S","title":"T"}}}"#)
        let own = try payload(#"{"alert":{"title":"own","body":"B"},"title":"T"}"#)
        #expect(own.body == #"{"_nid":"nid1","aps":{"alert":{"body":"B","title":"own"}}}"#)
        let titleOnly = try payload(#"{"title":"T"}"#)
        #expect(titleOnly.body == #"{"_nid":"nid1","aps":{"alert":{"title":"T"}}}"#)
        #expect(titleOnly.pushType == .alert)
        #expect(throws: PushDataError.self) { try payload(#"{"alert":"B","title":5}"#) }
    }

    @Test("collapse-id, apns-priority and apns-push-type are headers, never custom keys")
    func headerKeys() throws {
        let p = try payload(#"{"alert":"B","collapse-id":"score","apns-priority":"5","apns-push-type":"alert"}"#)
        #expect(p.body == #"{"_nid":"nid1","aps":{"alert":"B"}}"#)
        #expect((p.collapseId, p.priority, p.pushType) == ("score", 5, .alert))
        let voip = try payload(#"{"alert":"ring","apns-push-type":"voip"}"#)
        #expect((voip.pushType, voip.priority, voip.collapseId) == (.voip, 10, nil))
        let plain = try payload(#"{"alert":"B"}"#)
        #expect((plain.pushType, plain.priority, plain.collapseId) == (.alert, 10, nil))
    }

    @Test("bad header keys are refused when the push is requested")
    func badHeaderKeys() throws {
        for data in [
            #"{"alert":"B","apns-push-type":"telegram"}"#, #"{"alert":"B","apns-priority":7}"#,
            #"{"alert":"B","collapse-id":"a\r\nX-Injected: 1"}"#,
            #"{"alert":"B","collapse-id":"\#(String(repeating: "x", count: 65))"}"#, #"{"alert":"B","collapse-id":3}"#,
        ] {
            #expect(throws: PushDataError.self, "\(data)") { try PushData(JSON.parse(data)) }
        }
    }
}
