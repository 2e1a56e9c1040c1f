import PushCore
import Testing

@testable import Ledger

/// How a targeting page is cut into batches: each vendor lane's devices together, so that its lists fill up.
@Suite("Target batches of a page")
struct TargetBatchCutTests {
    private func target(
        _ id: String, _ type: String = "android", vendor: String? = nil, profile: String? = nil
    )
        -> PushTarget
    {
        PushTarget(
            objectId: id, deviceType: type, token: type == "ios" ? "ab" : "t-" + id, profile: profile, badge: nil,
            vendor: vendor)
    }

    @Test("a vendor's devices of one profile end up next to each other, each lane in page order")
    func lanesTogether() {
        let page = [
            target("a", vendor: "HMS"), target("b", "ios"), target("c", vendor: "mi"), target("d", vendor: "HMS"),
            target("e"), target("f", vendor: "mi"), target("g", vendor: "HMS", profile: "p1"),
            target("h", vendor: "HMS"),
        ]
        let cut = PushTargeting.batches(of: page, size: 3)
        // Written out by hand: devices without a vendor first in page order (b, e), then HMS (a, d, h), HMS
        // profile p1 (g), then mi (c, f); cut every three.
        #expect(cut.map { $0.map(\.objectId) } == [["b", "e", "a"], ["d", "h", "g"], ["c", "f"]])
    }

    @Test("six vendors evenly mixed over a page of 12 give each vendor's two devices one batch of 4")
    func evenMix() {
        let vendors = ["HMS", "mi", "oppo", "vivo", "mz", "honor"]
        let page = (0..<12).map { target(String(format: "%02d", $0), vendor: vendors[$0 % 6]) }
        let cut = PushTargeting.batches(of: page, size: 4)
        #expect(cut.count == 3)
        for batch in cut {
            for vendor in Set(batch.compactMap(\.vendor)) {
                #expect(batch.filter { $0.vendor == vendor }.count == 2, "\(vendor) split across batches")
            }
        }
        #expect(cut.flatMap { $0 }.map(\.objectId).sorted() == page.map(\.objectId))
    }

    @Test("a page without vendor devices keeps its order")
    func noVendors() {
        let page = ["1", "2", "3", "4", "5"].map { target($0, "ios") }
        #expect(
            PushTargeting.batches(of: page, size: 2).map { $0.map(\.objectId) } == [["1", "2"], ["3", "4"], ["5"]])
        #expect(PushTargeting.batches(of: [], size: 2).isEmpty)
    }
}
