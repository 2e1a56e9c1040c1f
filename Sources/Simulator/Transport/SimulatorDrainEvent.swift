/// Sent down each connection's pipeline at shutdown: HTTP/2 connections answer with GOAWAY and close once their
/// in-flight streams are answered; HTTP/1 connections close after the current response.
struct SimulatorDrainEvent: Sendable {}
