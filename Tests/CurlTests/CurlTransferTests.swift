import HTTPTypes
import Testing

@testable import Curl

@Suite struct CurlTransferTests {
    private func feed(_ transfer: CurlTransfer, headers: [String], body: String) {
        for line in headers { Array((line + "\r\n").utf8).withUnsafeBytes { transfer.receiveHeaderLine($0) } }
        Array(body.utf8).withUnsafeBytes { transfer.receiveBody($0) }
    }

    @Test(arguments: [("HTTP/2 200 ", 200), ("HTTP/1.1 404 Not Found", 404), ("HTTP/2 100", 100), ("HTTP/2", 0)])
    func statusLineCodeIsRead(line: String, code: Int) {
        let bytes = Array(line.utf8)
        #expect(bytes.withUnsafeBytes { CurlTransfer.statusCode(in: $0) } == code)
    }

    @Test func headersAreFoundWhateverTheirCaseTrimmedAndResetByAFinalStatusLine() throws {
        let transfer = try CurlTransfer(configuration: CurlConfiguration())
        feed(
            transfer,
            headers: [
                "HTTP/1.1 100 Continue", "X-Interim: 1", "", "HTTP/1.1 200 OK", "Apns-ID:  abc \t",
                "Content-Length: 2", "",
            ], body: "ok")
        let headers = transfer.makeResponse().headers
        #expect(headers[HTTPField.Name("x-interim")!] == nil)
        #expect(headers.map(\.name.canonicalName) == ["apns-id", "content-length"])
        #expect(headers[HTTPField.Name("apns-id")!] == "abc")
        #expect(transfer.responseStarted)
    }

    @Test(
        arguments: [
            ("Content-Length: 12", 12), ("content-length:0", 0), ("CONTENT-LENGTH: \t7 ", 7),
            ("content-length: 1x", nil),
            ("content-length:", nil), ("content-lengths: 3", nil), ("x-content-length: 3", nil),
            ("content-length: 1234567890123456", nil),
        ] as [(String, Int?)])
    func contentLengthIsReadFromItsLineOnly(line: String, length: Int?) {
        #expect(Array(line.utf8).withUnsafeBytes { CurlHeaderLines.contentLength(in: $0) } == length)
    }

    @Test func headerLinesWithoutAColonOrATokenNameAreDropped() {
        let fields = CurlHeaderLines.fields(Array("a: 1\nno colon\nbad name: 2\nb:\t two words \n".utf8))
        #expect(fields.map(\.name.canonicalName) == ["a", "b"])
        #expect(fields[HTTPField.Name("b")!] == "two words")
    }

    /// A server may answer before it has read the request body and then reset the stream (RFC 9113 §8.1);
    /// libcurl 7.88 reports an error although the response is whole, which the driver checks with this.
    @Test func completeResponseNeedsFinalHeadersAndTheAnnouncedLength() throws {
        let whole = try CurlTransfer(configuration: CurlConfiguration())
        feed(whole, headers: ["HTTP/2 200", "content-length: 2", ""], body: "ok")
        #expect(whole.hasCompleteResponse)

        let short = try CurlTransfer(configuration: CurlConfiguration())
        feed(short, headers: ["HTTP/2 200", "content-length: 2", ""], body: "o")
        #expect(!short.hasCompleteResponse)

        let unterminated = try CurlTransfer(configuration: CurlConfiguration())
        feed(unterminated, headers: ["HTTP/2 200", "content-length: 0"], body: "")
        #expect(!unterminated.hasCompleteResponse)

        let interim = try CurlTransfer(configuration: CurlConfiguration())
        feed(interim, headers: ["HTTP/1.1 100 Continue", "content-length: 0", ""], body: "")
        #expect(!interim.hasCompleteResponse)

        let unknownLength = try CurlTransfer(configuration: CurlConfiguration())
        feed(unknownLength, headers: ["HTTP/2 200", ""], body: "ok")
        #expect(!unknownLength.hasCompleteResponse)

        let noContent = try CurlTransfer(configuration: CurlConfiguration())
        feed(noContent, headers: ["HTTP/2 204", "apns-id: x", ""], body: "")
        #expect(noContent.hasCompleteResponse)
    }

    @Test func completeResponsesAreReportedToTheWatchOnceAndAgainAfterAReRun() throws {
        let watch = CurlCompletionWatch()
        let transfer = try CurlTransfer(configuration: CurlConfiguration(), watch: watch)
        feed(transfer, headers: ["HTTP/2 200", "content-length: 4", ""], body: "ok")
        #expect(watch.entries.isEmpty)
        Array("ok".utf8).withUnsafeBytes { transfer.receiveBody($0) }
        #expect(watch.entries.count == 1)
        #expect(watch.entries.first?.generation == transfer.generation)
        Array("".utf8).withUnsafeBytes { transfer.receiveBody($0) }
        #expect(watch.entries.count == 1)
        transfer.resetResponse()
        #expect(watch.entries.first?.generation != transfer.generation)
        feed(transfer, headers: ["HTTP/2 200", "content-length: 0", ""], body: "")
        #expect(watch.entries.count == 2)
    }
}
