import HTTPTypes

/// APNs request and response fields (Apple's "Sending notification requests to APNs").
extension HTTPField.Name {
    static let apnsTopic = HTTPField.Name("apns-topic")!
    static let apnsPushType = HTTPField.Name("apns-push-type")!
    static let apnsPriority = HTTPField.Name("apns-priority")!
    static let apnsExpiration = HTTPField.Name("apns-expiration")!
    static let apnsId = HTTPField.Name("apns-id")!
    static let apnsCollapseId = HTTPField.Name("apns-collapse-id")!
}
