import Foundation
import Ledger
import PushCore

extension BatchSender {
    /// What one target needs: an answer known without a provider, or a notification for one client.
    enum Prepared {
        case done(Delivered)
        case apns(APNsClient, APNsNotification)
        case fcm(FCMClient, FCMMessage)
        case wns(WNSClient, WNSNotification)
        case vendor(VendorLane, token: String)
    }

    /// Sends one chunk of a batch: each provider client's notifications go out as one submission (first
    /// attempts), then only the answers worth another attempt (429, 5xx, connection trouble, an expired
    /// provider token) are retried, each on its own with backoff.
    func deliver(
        _ chunk: [Int], plan: BatchPlan, claim: BatchClaim, request: PushRequest, gate: DispatchGate, now: Date
    ) async -> [(Int, Delivered)] {
        var delivered: [(Int, Delivered)] = []
        var apns = ClientGroups<APNsClient>()
        var fcm = ClientGroups<FCMClient>()
        var wns = ClientGroups<WNSClient>()
        var lanes: [VendorLane.Key: (lane: VendorLane, indices: [Int], tokens: [String])] = [:]
        for index in chunk {
            switch prepare(claim.targets[index], plan: plan, claim: claim, request: request, now: now) {
            case .done(let known): delivered.append((index, known))
            case .apns(let client, let notification): apns.add(client, index, notification)
            case .fcm(let client, let message): fcm.add(client, index, message)
            case .wns(let client, let notification): wns.add(client, index, notification)
            case .vendor(let lane, let token):
                lanes[lane.key, default: (lane, [], [])].indices.append(index)
                lanes[lane.key]!.tokens.append(token)
            }
        }
        let started = ContinuousClock.now
        await withTaskGroup(of: [(Int, Delivered)].self) { group in
            Self.send(apns, in: &group, started: started, gate: gate, now: now)
            Self.send(fcm, in: &group, started: started, gate: gate, now: now)
            Self.send(wns, in: &group, started: started, gate: gate, now: now)
            for (lane, indices, tokens) in lanes.values {
                group.addTask {
                    await self.sendVendor(lane, indices, tokens, plan: plan, started: started, gate: gate, now: now)
                }
            }
            for await part in group { delivered.append(contentsOf: part) }
        }
        return delivered
    }

    /// A vendor lane's devices of a chunk, in the vendor's lists; a daily-quota answer stops the vendor for
    /// the app's day.
    func sendVendor(
        _ lane: VendorLane, _ indices: [Int], _ tokens: [String], plan: BatchPlan, started: ContinuousClock.Instant,
        gate: DispatchGate, now: Date
    ) async -> [(Int, Delivered)] {
        let results = await lane.client.send(lane.message, to: tokens)
        let provider = lane.key.vendor.rawValue
        let timer = FanOutMetrics.providerTimer(provider)
        let elapsed = ContinuousClock.now - started
        var quota = false
        let delivered = zip(indices, results).map { index, result in
            FanOutMetrics.providerSend(provider, timer: timer, elapsed, attempts: result.attempts)
            if case .vendor(let reason)? = result.outcome.reason, reason.kind == .quota { quota = true }
            return (
                index,
                Delivered(outcome: Self.classify(result.outcome, gate: gate, now: now), retries: result.attempts - 1)
            )
        }
        if quota {
            await providers.stopForTheDay(app: plan.app, vendor: lane.key.vendor, profile: lane.key.profile, now: now)
        }
        return delivered
    }

    /// The notification for one target, or its outcome when no provider is needed (own channel, no content
    /// for its platform, no credentials).
    func prepare(_ target: PushTarget, plan: BatchPlan, claim: BatchClaim, request: PushRequest, now: Date) -> Prepared
    {
        let profile = target.profile ?? request.deviceProfile
        do {
            switch target.deviceType {
            case PushPlatform.ios.rawValue:
                let (client, topic) = try plan.apns(profile)
                guard let payload = try plan.apnsPayload(badge: target.badge) else {
                    return .done(.failed(reason: "NoContentForPlatform"))
                }
                var notification = APNsNotification(
                    deviceToken: target.token, payload: payload.bytes, pushType: payload.pushType,
                    priority: payload.priority,
                    expiration: request.expiration.map { LeanDate.unixMilliseconds($0) / 1000 },
                    // Re-sent batches after a crash collapse into one notification on the device, unless the
                    // push names its own collapse id.
                    collapseId: payload.collapseId ?? claim.pushId,
                    // Fixed now, so a retry of this notification repeats its id.
                    apnsId: FastUUID.make())
                notification.topic = topic
                return .apns(client, notification)
            case PushPlatform.android.rawValue:
                let ttl = request.expiration.map { max(0, Int64($0.timeIntervalSince(now).rounded(.down))) }
                switch DeliveryRoute(target) {
                case .channel: return .done(Self.viaChannel(.android, plan: plan))
                case .unknownVendor: return .done(.failed(reason: "UnknownVendor"))
                case .vendor(let vendor):
                    switch plan.vendorLane(vendor, profile) {
                    case .failure(let failure): return .done(.failed(reason: failure.reason))
                    case .success(let lane):
                        guard lane.client.accepts(token: target.token) else {
                            return .done(.failed(reason: ProviderReason.forbiddenEndpoint.description))
                        }
                        return .vendor(lane, token: target.token)
                    }
                case .fcm(leanCloudShape: true):
                    let client = try plan.fcm(profile)
                    guard let content = try plan.fcmLeanCloudContent.get() else {
                        return .done(.failed(reason: "NoContentForPlatform"))
                    }
                    return .fcm(client, try FCMMessage(leanCloud: content, token: target.token, timeToLive: ttl))
                default:
                    let client = try plan.fcm(profile)
                    guard
                        let message = try plan.data.fcmMessage(
                            token: target.token, notificationId: claim.pushId, timeToLive: ttl)
                    else { return .done(.failed(reason: "NoContentForPlatform")) }
                    return .fcm(client, message)
                }
            case PushPlatform.windows.rawValue:
                guard !target.token.isEmpty else { return .done(Self.viaChannel(.windows, plan: plan)) }
                let client = try plan.wns(profile)
                guard let payload = try plan.windowsPayload() else {
                    return .done(.failed(reason: "NoContentForPlatform"))
                }
                return .wns(
                    client,
                    WNSNotification(
                        channelURI: target.token, payload: payload,
                        timeToLive: request.expiration.map { Int64($0.timeIntervalSince(now).rounded(.down)) }))
            default:
                return .done(.failed(reason: "NoDeliveryChannel"))
            }
        } catch let failure as ProviderRegistry.Failure {
            return .done(.failed(reason: failure.reason))
        } catch {
            return .done(.failed(reason: "InvalidPayload"))
        }
    }

    /// A task per client of the chunk: its first attempts in one submission, then `settle`.
    static func send<Client: ChunkSending>(
        _ clients: ClientGroups<Client>, in group: inout TaskGroup<[(Int, Delivered)]>,
        started: ContinuousClock.Instant, gate: DispatchGate, now: Date
    ) {
        for (client, indices, notifications) in clients.groups {
            group.addTask {
                let firsts = await client.firstAttempts(notifications)
                return await settle(Client.provider, indices, firsts, started: started, gate: gate, now: now) {
                    await client.retry(notifications[$0], first: $1)
                }
            }
        }
    }

    /// Turns one client's first answers into outcomes: final answers as they are, the others through the
    /// client's retry loop (concurrently, each waiting its own backoff). Times each notification for the
    /// metrics from the chunk's start to its last answer.
    static func settle(
        _ provider: String, _ indices: [Int], _ firsts: [DeliveryOutcome], started: ContinuousClock.Instant,
        gate: DispatchGate, now: Date, retry: @escaping @Sendable (Int, DeliveryOutcome) async -> DeliveryResult
    ) async -> [(Int, Delivered)] {
        let answered = ContinuousClock.now - started
        var results: [(Int, DeliveryResult, Duration)] = []
        results.reserveCapacity(firsts.count)
        await withTaskGroup(of: (Int, DeliveryResult, Duration).self) { group in
            for (position, first) in firsts.enumerated() {
                switch first {
                case .success, .invalidToken, .permanent:
                    results.append((position, DeliveryResult(outcome: first, attempts: 1), answered))
                case .retryable, .expiredProviderToken:
                    group.addTask { (position, await retry(position, first), ContinuousClock.now - started) }
                }
            }
            for await retried in group { results.append(retried) }
        }
        let timer = FanOutMetrics.providerTimer(provider)
        return results.map { position, result, duration in
            FanOutMetrics.providerSend(provider, timer: timer, duration, attempts: result.attempts)
            let outcome = classify(result.outcome, gate: gate, now: now)
            return (indices[position], Delivered(outcome: outcome, retries: result.attempts - 1))
        }
    }
}

/// Notifications of a chunk grouped by the client that sends them (normally one per provider), in order.
struct ClientGroups<Client: ChunkSending> {
    typealias Notification = Client.Notification

    private var order: [ObjectIdentifier] = []
    private var members: [ObjectIdentifier: (client: Client, indices: [Int], notifications: [Notification])] = [:]

    mutating func add(_ client: Client, _ index: Int, _ notification: Notification) {
        let key = ObjectIdentifier(client)
        if members[key] == nil {
            order.append(key)
            members[key] = (client, [], [])
        }
        members[key]!.indices.append(index)
        members[key]!.notifications.append(notification)
    }

    var groups: [(Client, [Int], [Notification])] {
        order.map { key in
            let group = members[key]!
            return (group.client, group.indices, group.notifications)
        }
    }
}

/// A provider client as a chunk sees it: the first attempts of many notifications in one submission, then
/// the client's retry loop for one whose answer is worth another attempt.
protocol ChunkSending: AnyObject, Sendable {
    associatedtype Notification: Sendable
    /// The `provider` label of the metrics.
    static var provider: String { get }
    func firstAttempts(_ notifications: [Notification]) async -> [DeliveryOutcome]
    func retry(_ notification: Notification, first: DeliveryOutcome) async -> DeliveryResult
}

extension APNsClient: ChunkSending {
    static var provider: String { "apns" }
    func firstAttempts(_ notifications: [APNsNotification]) async -> [DeliveryOutcome] {
        await attempt(all: notifications)
    }
    func retry(_ notification: APNsNotification, first: DeliveryOutcome) async -> DeliveryResult {
        await send(notification, first: first)
    }
}

extension FCMClient: ChunkSending {
    static var provider: String { "fcm" }
    func firstAttempts(_ messages: [FCMMessage]) async -> [DeliveryOutcome] {
        await attempt(all: messages.map(\.message))
    }
    func retry(_ message: FCMMessage, first: DeliveryOutcome) async -> DeliveryResult {
        await send(message: message.message, first: first)
    }
}

extension WNSClient: ChunkSending {
    static var provider: String { "wns" }
    func firstAttempts(_ notifications: [WNSNotification]) async -> [DeliveryOutcome] {
        await attempt(all: notifications)
    }
    func retry(_ notification: WNSNotification, first: DeliveryOutcome) async -> DeliveryResult {
        await send(notification, first: first)
    }
}
