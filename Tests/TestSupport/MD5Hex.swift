import Foundation

/// MD5 via the `md5sum` tool, so tests sign requests independently of the server's implementation.
public enum MD5Hex {
    public static func hash(_ text: String) -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/md5sum")
        let input = Pipe()
        let output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        try? p.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try? input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(String(decoding: data, as: UTF8.self).prefix(32))
    }
}
