import Foundation
import PushCore

/// One notification for one device, with the APNs headers that go with it.
public struct APNsNotification: OneDeviceRequest {
    /// Hex device token.
    public var deviceToken: String
    /// The JSON body.
    public var payload: [UInt8]
    public var pushType: APNsPushType
    /// `apns-priority`; Apple requires 5 for background pushes.
    public var priority: Int
    /// `apns-expiration` in Unix seconds: 0 asks for one delivery attempt and no storage; `nil` leaves the
    /// header out.
    public var expiration: Int64?
    public var collapseId: String?
    /// `apns-id`, fixed when the notification is made, so every attempt of it repeats the id (Apple and our
    /// logs see retries of the same notification).
    public var apnsId: UUID
    /// Overrides the configured `apns-topic`.
    public var topic: String?

    public init(
        deviceToken: String,
        payload: [UInt8],
        pushType: APNsPushType = .alert,
        priority: Int? = nil,
        expiration: Int64? = nil,
        collapseId: String? = nil,
        apnsId: UUID? = nil,
        topic: String? = nil
    ) {
        self.deviceToken = deviceToken
        self.payload = payload
        self.pushType = pushType
        self.priority = priority ?? pushType.priority
        self.expiration = expiration
        self.collapseId = collapseId
        self.apnsId = apnsId ?? FastUUID.make()
        self.topic = topic
    }

    /// From PushCore's payload, which already decided the push type and priority.
    public init(
        deviceToken: String,
        payload: APNsPayload,
        expiration: Int64? = nil,
        collapseId: String? = nil,
        apnsId: UUID? = nil
    ) {
        self.init(
            deviceToken: deviceToken, payload: Array(payload.body.utf8), pushType: payload.pushType,
            priority: payload.priority, expiration: expiration, collapseId: collapseId ?? payload.collapseId,
            apnsId: apnsId
        )
    }
}
