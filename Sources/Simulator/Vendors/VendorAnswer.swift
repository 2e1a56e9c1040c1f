import PushCore

/// How a vendor look-alike answers one send, with what the statistics and recordings need to know about it.
struct VendorAnswer {
    var status: Int
    var body: JSON
    /// The vendor's code when it refused the whole request (counted under `refused`); nil when it answered devices.
    var refusal: String?
    /// Per device in request order, when not refused: nil delivered, else the code or list naming the device.
    var deviceReasons: [String?]

    static func refused(_ status: Int = 200, code: String, _ body: JSON) -> VendorAnswer {
        VendorAnswer(status: status, body: body, refusal: code, deviceReasons: [])
    }

    static func devices(_ body: JSON, reasons: [String?]) -> VendorAnswer {
        VendorAnswer(status: 200, body: body, refusal: nil, deviceReasons: reasons)
    }

    var response: SimulatorResponse {
        .json(self.status, self.body)
    }
}
