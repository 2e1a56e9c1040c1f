import PushCore
import Testing

/// Both error types reach clients as LeanCloud `{"code","error"}` bodies.
struct PayloadAndQueryLeanErrorTests {
    @Test func errorsBridgeToLeanErrorWithTheirCodes() {
        #expect(PushDataError(.malformed, "m").leanError == LeanError(107, "m"))
        #expect(PushDataError(.payloadTooLarge(size: 5000, limit: 4096), "big").leanError == LeanError(1, "big"))
        #expect(QueryError.invalidQuery("q").leanError == LeanError(102, "q"))
        #expect(QueryError.invalidQuery("q").leanError.kind == .badRequest)
    }
}
